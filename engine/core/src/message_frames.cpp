#include "kiln/core/message_frames.h"

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

namespace kiln::core {
namespace {

ReadResult read_exact(int fd, char* p, std::size_t n, std::chrono::steady_clock::time_point deadline) {
  while (n > 0) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return ReadResult::kTimeout;
    pollfd pfd{fd, POLLIN, 0};
    const int ready = ::poll(&pfd, 1, int(std::min<std::int64_t>(left.count(), 1 << 30)));
    if (ready < 0 && errno == EINTR) continue;
    if (ready < 0) return ReadResult::kClosed;
    if (ready == 0) return ReadResult::kTimeout;
    const ssize_t r = ::read(fd, p, n);
    if (r < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (r <= 0) return ReadResult::kClosed;
    p += r;
    n -= std::size_t(r);
  }
  return ReadResult::kOk;
}

}  // namespace

bool send_message(int fd, std::string_view body) {
  const std::uint64_t n = body.size();
  std::string frame(reinterpret_cast<const char*>(&n), sizeof n);
  frame.append(body);
  for (std::size_t sent = 0; sent < frame.size();) {
    const ssize_t w = ::send(fd, frame.data() + sent, frame.size() - sent, MSG_NOSIGNAL);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    sent += std::size_t(w);
  }
  return true;
}

ReadResult read_message(int fd, std::string& body, std::chrono::steady_clock::time_point deadline) {
  std::uint64_t n = 0;
  if (auto r = read_exact(fd, reinterpret_cast<char*>(&n), sizeof n, deadline); r != ReadResult::kOk) return r;
  if (n > kMaxMessageBytes) return ReadResult::kClosed;
  body.resize(n);
  return read_exact(fd, body.data(), n, deadline);
}

}  // namespace kiln::core
