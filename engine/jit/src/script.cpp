#include "kiln/jit/script.h"

#include <fstream>
#include <sstream>

namespace kiln::jit {

Result<Program> compile_script(const std::string& file, std::string_view source, const std::vector<HostSignature>& host) {
  auto script = parse_script(file, source);
  if (!script) return script.error();
  auto checked = check_script(*script, host);
  if (!checked) return checked.error();
  return compile_program(*checked, host);
}

Result<Program> compile_script_file(const std::string& file, const std::vector<HostSignature>& host) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return make_error(file + ": cannot open script");
  std::stringstream buffer;
  buffer << in.rdbuf();
  return compile_script(file, buffer.str(), host);
}

}  // namespace kiln::jit
