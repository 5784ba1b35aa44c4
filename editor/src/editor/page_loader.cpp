// The editor's side of its page: the --serve address, and kiln-page.so loaded when a page is
// served (see page_server.h).

#include <charconv>
#include <mutex>

#include "editor/page_server.h"
#include "kiln/core/program_files.h"
#include "kiln/core/runtime_library.h"

namespace kiln::editor {

Result<std::pair<std::string, int>> parse_serve_address(std::string_view text) {
  std::string host = "127.0.0.1";
  std::string_view port = text;
  if (const auto colon = text.rfind(':'); colon != std::string_view::npos) {
    host = std::string(text.substr(0, colon));
    port = text.substr(colon + 1);
    if (host.size() > 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
    if (host.empty()) return make_error("--serve " + std::string(text) + ": no address before ':'");
  }
  int value = -1;
  const auto [end, ec] = std::from_chars(port.data(), port.data() + port.size(), value);
  if (port.empty() || ec != std::errc() || end != port.data() + port.size() || value < 0 || value > 65535)
    return make_error("--serve " + std::string(text) + ": the port must be a number from 0 to 65535 ([ADDR:]PORT)");
  return std::pair{host, value};
}

Result<std::unique_ptr<PageServer>> start_page_server(const PageServerOptions& options) {
  static constexpr const char* kPlugin = "kiln-page.so";
  auto plugin = Plugin::open(find_program_file(kPlugin), kPlugin, "editor page");
  if (!plugin) return plugin.error();
  auto entry = plugin->entry(kPageServerEntry);
  if (!entry) return entry.error();
  std::string error;
  PageServer* server = reinterpret_cast<PageServerEntry>(*entry)(KILN_TOOLS_BUILD_ID, &options, &error);
  if (!server) return make_error(error);
  return std::unique_ptr<PageServer>(server);
}

}  // namespace kiln::editor
