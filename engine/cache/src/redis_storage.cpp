#include "redis_storage.h"

#include <hiredis/hiredis.h>
#include <sys/time.h>

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

class RedisStorage final : public RemoteStorage {
 public:
  RedisStorage(RemoteUrl url, int db, std::chrono::milliseconds timeout)
      : url_(std::move(url)), db_(db), timeout_(timeout), address_(url_.address()), pool_(8) {}

  RemoteReply get(const std::string& key) override {
    return call([&](redisContext* c) { return redisCommand(c, "GET %b", key.data(), key.size()); });
  }
  RemoteReply put(const std::string& key, std::span<const std::byte> value) override {
    return call([&](redisContext* c) {
      return redisCommand(c, "SET %b %b", key.data(), key.size(), value.data(), value.size());
    });
  }
  RemoteReply remove(const std::string& key) override {
    RemoteReply reply = call([&](redisContext* c) { return redisCommand(c, "DEL %b", key.data(), key.size()); });
    if (reply.outcome == RemoteReply::kAbsent) reply.outcome = RemoteReply::kOk;  // gone either way
    return reply;
  }
  RemoteReply has(const std::string& key) override {
    return call([&](redisContext* c) { return redisCommand(c, "EXISTS %b", key.data(), key.size()); });
  }
  const std::string& address() const override { return address_; }

 private:
  timeval timeval_of_timeout() const {
    const auto us = std::chrono::duration_cast<std::chrono::microseconds>(timeout_).count();
    return timeval{static_cast<time_t>(us / 1000000), static_cast<suseconds_t>(us % 1000000)};
  }

  // A connection, ready for commands: authenticated and on the chosen database.
  std::unique_ptr<RedisConnection> connect(std::string& problem) {
    auto c = std::make_unique<RedisConnection>();
    c->context = redisConnectWithTimeout(url_.host.c_str(), url_.port, timeval_of_timeout());
    if (!c->context || c->context->err) {
      problem = c->context ? c->context->errstr : "out of memory";
      return nullptr;
    }
    redisSetTimeout(c->context, timeval_of_timeout());
    auto setup = [&](Reply reply) {
      if (!reply) {
        problem = c->context->errstr;
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
      auto* auth = url_.user.empty() ? redisCommand(c->context, "AUTH %s", url_.password.c_str())
                                     : redisCommand(c->context, "AUTH %s %s", url_.user.c_str(), url_.password.c_str());
      if (!setup(Reply(static_cast<redisReply*>(auth)))) return nullptr;
    }
    if (db_ != 0 && !setup(Reply(static_cast<redisReply*>(redisCommand(c->context, "SELECT %d", db_))))) return nullptr;
    return c;
  }

  template <class Command>
  RemoteReply call(Command command) {
    RemoteReply out;
    std::unique_ptr<RedisConnection> c = pool_.take();
    if (!c) {
      c = connect(out.problem);
      if (!c) {
        out.outcome =
            out.problem.find("NOAUTH") != std::string::npos || out.problem.find("WRONGPASS") != std::string::npos
                ? RemoteReply::kRefused
                : RemoteReply::kUnreachable;
        return out;
      }
    }
    Reply reply(static_cast<redisReply*>(command(c->context)));
    if (!reply) {  // the connection is broken (closed, timed out): it is not given back
      out.outcome = RemoteReply::kUnreachable;
      out.problem = c->context->errstr[0] ? c->context->errstr : "no reply";
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
