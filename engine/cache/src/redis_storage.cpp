#include "redis_storage.h"

#include <hiredis/hiredis.h>
#include <sys/time.h>

#include <algorithm>
#include <cerrno>
#include <optional>
#include <span>

#include "connection_pool.h"

namespace kiln::cache {
namespace {

struct RedisConnection {
  redisContext* context = nullptr;
  ~RedisConnection() {
    if (context) redisFree(context);
  }
};

struct ReplyDeleter {
  void operator()(redisReply* r) const { freeReplyObject(r); }
};
using Reply = std::unique_ptr<redisReply, ReplyDeleter>;

using Clock = std::chrono::steady_clock;

// The largest reply that is not an entry (a status, an error, a count).
constexpr std::uint64_t kMaxOtherReply = 64 << 10;

timeval timeval_of(Clock::duration left) {
  const auto us = std::max<std::int64_t>(1000, std::chrono::duration_cast<std::chrono::microseconds>(left).count());
  return timeval{static_cast<time_t>(us / 1000000), static_cast<suseconds_t>(us % 1000000)};
}

// The reply's announced bulk length and the body bytes already here, read from what the reader
// holds and has not parsed yet ("$<length>\r\n<body>"); nullopt until the length line is in.
std::optional<std::pair<std::uint64_t, std::span<const std::byte>>> pending_bulk(const redisReader* reader) {
  const char* p = reader->buf + reader->pos;
  std::size_t n = reader->len - reader->pos;
  if (n > 0 && *p == '$') ++p, --n;
  std::uint64_t length = 0;
  std::size_t i = 0;
  for (; i < n && i < 20 && p[i] >= '0' && p[i] <= '9'; ++i) length = length * 10 + std::uint64_t(p[i] - '0');
  if (i == 0 || i + 1 >= n || p[i] != '\r' || p[i + 1] != '\n') return std::nullopt;
  return std::pair{length, std::span(reinterpret_cast<const std::byte*>(p + i + 2), n - i - 2)};
}

class RedisStorage final : public RemoteStorage {
 public:
  RedisStorage(RemoteUrl url, int db, std::chrono::milliseconds timeout)
      : url_(std::move(url)), db_(db), timeout_(timeout), address_(url_.address()), pool_(8) {}

  RemoteReply get(const std::string& key, const EntryLimits& limits) override {
    return call([&](redisContext* c) { return redisAppendCommand(c, "GET %b", key.data(), key.size()); }, &limits);
  }
  RemoteReply put(const std::string& key, std::span<const std::byte> value) override {
    return call([&](redisContext* c) {
      return redisAppendCommand(c, "SET %b %b", key.data(), key.size(), value.data(), value.size());
    });
  }
  RemoteReply remove(const std::string& key) override {
    RemoteReply reply = call([&](redisContext* c) { return redisAppendCommand(c, "DEL %b", key.data(), key.size()); });
    if (reply.outcome == RemoteReply::kAbsent) reply.outcome = RemoteReply::kOk;  // gone either way
    return reply;
  }
  RemoteReply has(const std::string& key) override {
    return call([&](redisContext* c) { return redisAppendCommand(c, "EXISTS %b", key.data(), key.size()); });
  }
  const std::string& address() const override { return address_; }

 private:
  // Sends what was appended and reads one reply, all before `deadline`: each write and read waits
  // at most the time left, so a server that drips its reply cannot stretch the operation. A reply
  // is bounded as it arrives: a bulk whose announced length, or whose entry header, says more than
  // `limits` allow is refused before the rest of its body is read. nullptr: `problem` says why
  // (`unusable` when the entry, not the server, is at fault); the connection is then not reusable.
  static Reply exchange(redisContext* c, Clock::time_point deadline, const EntryLimits* limits, std::string& problem,
                        bool& unusable) {
    // A read or write that waited out the time left (SO_RCVTIMEO, SO_SNDTIMEO) ends with EAGAIN:
    // the deadline, said as such.
    auto io_problem = [&](const char* otherwise) {
      problem = errno == EAGAIN || errno == EWOULDBLOCK ? "no whole reply within the timeout" : otherwise;
    };
    auto time_left = [&] {
      const auto left = deadline - Clock::now();
      if (left <= Clock::duration::zero()) {
        problem = "no whole reply within the timeout";
        return false;
      }
      redisSetTimeout(c, timeval_of(left));
      return true;
    };
    for (int done = 0; !done;) {
      if (!time_left()) return nullptr;
      if (redisBufferWrite(c, &done) == REDIS_ERR) {
        io_problem(c->errstr);
        return nullptr;
      }
    }
    const std::uint64_t max = limits ? limits->max_bytes : kMaxOtherReply;
    bool head_checked = false;
    void* reply = nullptr;
    for (;;) {
      if (redisGetReplyFromReader(c, &reply) == REDIS_ERR) {
        problem = c->errstr;
        return nullptr;
      }
      if (reply) return Reply(static_cast<redisReply*>(reply));
      if (auto bulk = pending_bulk(c->reader)) {
        const auto [length, head] = *bulk;
        if (length > max) {
          unusable = true;
          problem = "an entry of " + std::to_string(length) + " bytes, more than the " + std::to_string(max) +
                    " an entry may have";
          return nullptr;
        }
        if (limits && limits->head_size && !head_checked && head.size() >= limits->head_bytes) {
          head_checked = true;
          auto size = limits->head_size(head.first(limits->head_bytes));
          if (!size || *size != length) {
            unusable = true;
            problem =
                size ? "an entry whose header says " + std::to_string(*size) + " bytes, not " + std::to_string(length)
                     : size.error().message;
            return nullptr;
          }
        }
      } else if (c->reader->len - c->reader->pos > max) {
        problem = "a reply larger than any the cache sends";
        return nullptr;
      }
      if (!time_left()) return nullptr;
      if (redisBufferRead(c) == REDIS_ERR) {
        io_problem(c->errstr[0] ? c->errstr : "the connection closed");
        return nullptr;
      }
    }
  }

  // A connection, ready for commands: authenticated and on the chosen database.
  std::unique_ptr<RedisConnection> connect(Clock::time_point deadline, std::string& problem) {
    auto c = std::make_unique<RedisConnection>();
    c->context = redisConnectWithTimeout(url_.host.c_str(), url_.port, timeval_of(deadline - Clock::now()));
    if (!c->context || c->context->err) {
      problem = c->context ? c->context->errstr : "out of memory";
      return nullptr;
    }
    auto setup = [&](int appended) {
      bool unusable = false;
      Reply reply = appended == REDIS_OK ? exchange(c->context, deadline, nullptr, problem, unusable) : nullptr;
      if (!reply) {
        if (problem.empty()) problem = c->context->errstr;
        return false;
      }
      if (reply->type == REDIS_REPLY_ERROR) {
        problem = reply->str;
        return false;
      }
      return true;
    };
    if (!url_.password.empty()) {
      // AUTH user password: a Redis 6 ACL user; AUTH password: the default user.
      const int auth = url_.user.empty()
                           ? redisAppendCommand(c->context, "AUTH %s", url_.password.c_str())
                           : redisAppendCommand(c->context, "AUTH %s %s", url_.user.c_str(), url_.password.c_str());
      if (!setup(auth)) return nullptr;
    }
    if (db_ != 0 && !setup(redisAppendCommand(c->context, "SELECT %d", db_))) return nullptr;
    return c;
  }

  template <class Command>
  RemoteReply call(Command command, const EntryLimits* limits = nullptr) {
    RemoteReply out;
    const Clock::time_point deadline = Clock::now() + timeout_;  // the whole operation, connecting included
    std::unique_ptr<RedisConnection> c = pool_.take();
    if (!c) {
      c = connect(deadline, out.problem);
      if (!c) {
        out.outcome =
            out.problem.find("NOAUTH") != std::string::npos || out.problem.find("WRONGPASS") != std::string::npos
                ? RemoteReply::kRefused
                : RemoteReply::kUnreachable;
        return out;
      }
    }
    bool unusable = false;
    Reply reply =
        command(c->context) == REDIS_OK ? exchange(c->context, deadline, limits, out.problem, unusable) : nullptr;
    if (!reply) {  // the connection is broken, timed out or mid-reply: it is not given back
      out.outcome = unusable ? RemoteReply::kUnusable : RemoteReply::kUnreachable;
      if (out.problem.empty()) out.problem = c->context->errstr[0] ? c->context->errstr : "no reply";
      return out;
    }
    switch (reply->type) {
      case REDIS_REPLY_NIL: out.outcome = RemoteReply::kAbsent; break;
      case REDIS_REPLY_STRING: {
        const auto* bytes = reinterpret_cast<const std::byte*>(reply->str);
        out.value.assign(bytes, bytes + reply->len);
        break;
      }
      case REDIS_REPLY_ERROR:  // OOM with maxmemory, READONLY on a replica, NOPERM, WRONGTYPE...
        out.problem = std::string(reply->str, reply->len);
        // A key holding something other than a string is a bad entry, not a server saying no.
        out.outcome = out.problem.rfind("WRONGTYPE", 0) == 0 ? RemoteReply::kUnusable : RemoteReply::kRefused;
        break;
      case REDIS_REPLY_INTEGER:  // EXISTS: 1 or 0; DEL: how many
        if (reply->integer == 0) out.outcome = RemoteReply::kAbsent;
        break;
      case REDIS_REPLY_ARRAY:  // not what these commands answer
        out.outcome = RemoteReply::kUnusable;
        out.problem = "an array where a value was expected";
        break;
      default:  // SET's "OK"
        break;
    }
    pool_.give(std::move(c));
    return out;
  }

  RemoteUrl url_;
  int db_;
  std::chrono::milliseconds timeout_;
  std::string address_;
  ConnectionPool<RedisConnection> pool_;
};

}  // namespace

std::unique_ptr<RemoteStorage> make_redis_storage(RemoteUrl url, int db, std::chrono::milliseconds timeout) {
  return std::make_unique<RedisStorage>(std::move(url), db, timeout);
}

}  // namespace kiln::cache
