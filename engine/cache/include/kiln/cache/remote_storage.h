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
// lookup, and every operation is bounded by the timeout.
//
// Thread-safety: every member function may be called from any thread; each call uses a
// connection of its own from a small pool.

#include <chrono>
#include <cstddef>
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

class RemoteStorage {
 public:
  virtual ~RemoteStorage() = default;
  virtual RemoteReply get(const std::string& key) = 0;
  virtual RemoteReply put(const std::string& key, std::span<const std::byte> value) = 0;
  virtual RemoteReply remove(const std::string& key) = 0;
  // Whether an entry is there (kOk) or not (kAbsent), without reading it.
  virtual RemoteReply has(const std::string& key) = 0;
  // The server's address for messages, without any password.
  virtual const std::string& address() const = 0;
};

struct RemoteOptions {
  std::string url;                          // cache.remote
  std::chrono::milliseconds timeout{2000};  // cache.remote_timeout: connect, and each operation
};

// The backend `options.url` names. Fails (naming the URL and what is wrong with it) for a URL Kiln
// cannot use; does not connect.
Result<std::unique_ptr<RemoteStorage>> open_remote_storage(const RemoteOptions& options);

}  // namespace kiln::cache
