#include "remote_url.h"

#include <charconv>

#include "kiln/core/text.h"

namespace kiln::cache {

std::string RemoteUrl::address() const {
  const bool v6 = host.find(':') != std::string::npos;
  return scheme + "://" + (v6 ? "[" + host + "]" : host) + ":" + std::to_string(port) + (path.empty() ? "" : "/") +
         path;
}

Result<RemoteUrl> parse_remote_url(std::string_view url, std::uint16_t default_port) {
  auto bad = [&](const std::string& why) {
    return make_error("cache.remote '" + without_credentials(url) + "': " + why);
  };
  RemoteUrl out;
  const auto scheme_end = url.find("://");
  if (scheme_end == std::string_view::npos || scheme_end == 0) return bad("expected scheme://host[:port][/path]");
  out.scheme = std::string(url.substr(0, scheme_end));
  std::string_view rest = url.substr(scheme_end + 3);
  const auto slash = rest.find('/');
  std::string_view authority = rest.substr(0, slash);
  if (slash != std::string_view::npos) out.path = std::string(rest.substr(slash + 1));
  while (!out.path.empty() && out.path.back() == '/') out.path.pop_back();
  if (out.path.find_first_of("?#") != std::string::npos) return bad("a query or fragment is not supported");
  if (const auto at = authority.rfind('@'); at != std::string_view::npos) {
    const std::string_view user_info = authority.substr(0, at);
    const auto colon = user_info.find(':');
    if (colon == std::string_view::npos) {
      out.password = std::string(user_info);  // redis://secret@host: the password alone
    } else {
      out.user = std::string(user_info.substr(0, colon));
      out.password = std::string(user_info.substr(colon + 1));
    }
    authority = authority.substr(at + 1);
  }
  std::string_view port_text;
  if (!authority.empty() && authority.front() == '[') {
    const auto close = authority.find(']');
    if (close == std::string_view::npos) return bad("an IPv6 address without its closing ']'");
    out.host = std::string(authority.substr(1, close - 1));
    const std::string_view after = authority.substr(close + 1);
    if (!after.empty() && after.front() != ':') return bad("unexpected text after the IPv6 address");
    if (!after.empty()) port_text = after.substr(1);
  } else {
    const auto colon = authority.find(':');
    out.host = std::string(authority.substr(0, colon));
    if (colon != std::string_view::npos) port_text = authority.substr(colon + 1);
  }
  if (out.host.empty()) return bad("no host");
  out.port = default_port;
  if (!port_text.empty()) {
    unsigned value = 0;
    const auto [end, ec] = std::from_chars(port_text.data(), port_text.data() + port_text.size(), value);
    if (ec != std::errc() || end != port_text.data() + port_text.size() || value == 0 || value > 65535)
      return bad("the port must be a number from 1 to 65535");
    out.port = static_cast<std::uint16_t>(value);
  }
  return out;
}

}  // namespace kiln::cache
