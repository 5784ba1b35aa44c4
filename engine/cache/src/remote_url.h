#pragma once
// The parts of a remote cache URL (scheme://[user][:password@]host[:port][/path]).

#include <cstdint>
#include <string>
#include <string_view>

#include "kiln/core/result.h"

namespace kiln::cache {

struct RemoteUrl {
  std::string scheme;    // "redis", "http"
  std::string user;      // from the user-info part (user:password@); empty when none
  std::string password;  // from the user-info part (a lone word is the password); empty when none
  std::string host;      // a name, an IPv4 address or a bracketed IPv6 address without brackets
  std::uint16_t port = 0;
  std::string path;  // without the leading '/', may be empty
  // scheme://host:port/path, without the password: what messages show.
  std::string address() const;
};

// Fails with the URL and what is wrong with it; `default_port` applies when none is given.
Result<RemoteUrl> parse_remote_url(std::string_view url, std::uint16_t default_port);

}  // namespace kiln::cache
