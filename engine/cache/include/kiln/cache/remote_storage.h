#pragma once
// A remote level of the cache: a server that many machines share (a build farm's cache). Two
// backends speak to servers studios already run, in the manner of ccache's remote storage:
//
//   redis://[:password@]host[:port][/db]   Redis (GET, SET, DEL); db 0 and port 6379 by default
//   http://host[:port][/prefix]            an HTTP cache: GET, PUT, DELETE of <prefix>/<key>
//                                          (nginx with WebDAV PUT, or any server speaking it)
//
// The backend only moves bytes under a key; what the bytes are and whether they can be trusted is
// the store's business (remote_level.h checks every entry before using it). Connections are opened
// when first needed, not when the backend is made, so a server that is down costs nothing until a
// lookup, and every operation — connecting, sending and the whole reply — ends by one deadline,
// the timeout after it started: a server that answers a byte at a time cannot stretch it.
//
// Thread-safety: every member function may be called from any thread; each call uses a
// connection of its own from a small pool.

#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "kiln/core/result.h"

namespace kiln::cache {

// What a remote server answered.
struct RemoteReply {
  enum Outcome {
    kOk,           // done; for get, `value` holds the entry
    kAbsent,       // get: no entry under the key
    kUnreachable,  // no answer: connection refused or lost, timeout, protocol error
    kRefused,      // the server answered no (full, read-only, forbidden)
    kUnusable,     // get: an entry is there but cannot be used (too large, not a string value)
  };
  Outcome outcome = kOk;
  std::vector<std::byte> value;
  std::string problem;  // for kUnreachable and kRefused: one line for people
};

// How much of an entry a get may read. The size is known before the body is read: from what the
// server announces (a Redis bulk length, an HTTP Content-Length), and from the entry's own header
// once its first `head_bytes` have arrived (`head_size` answers the entry's whole size, or a
// problem). An entry larger than `max_bytes`, or than its header says, is refused as soon as that
// is known (kUnusable): nothing past it is ever buffered.
struct EntryLimits {
  std::uint64_t max_bytes = std::uint64_t{1} << 30;
  std::size_t head_bytes = 0;
  std::function<Result<std::uint64_t>(std::span<const std::byte> head)> head_size;
};

class RemoteStorage {
 public:
  virtual ~RemoteStorage() = default;
  virtual RemoteReply get(const std::string& key, const EntryLimits& limits) = 0;
  RemoteReply get(const std::string& key) { return get(key, EntryLimits{}); }
  virtual RemoteReply put(const std::string& key, std::span<const std::byte> value) = 0;
  virtual RemoteReply remove(const std::string& key) = 0;
  // Whether an entry is there (kOk) or not (kAbsent), without reading it.
  virtual RemoteReply has(const std::string& key) = 0;
  // The server's address for messages, without any password.
  virtual const std::string& address() const = 0;
};

struct RemoteOptions {
  std::string url;                          // cache.remote
  std::chrono::milliseconds timeout{2000};  // cache.remote_timeout: each operation, connecting included
};

// The backend `options.url` names. Fails (naming the URL and what is wrong with it) for a URL Kiln
// cannot use; does not connect.
Result<std::unique_ptr<RemoteStorage>> open_remote_storage(const RemoteOptions& options);

}  // namespace kiln::cache
