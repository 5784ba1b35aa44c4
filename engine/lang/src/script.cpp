#include "kiln/lang/script.h"

#include "kiln/core/input_limits.h"

namespace kiln::lang {
using namespace jit;  // the bytecode it writes

Result<Program> compile_script(const std::string& file, std::string_view source,
                               const std::vector<HostSignature>& host) {
  if (source.size() > limits::kScriptBytes)
    return make_error(file + ": " + describe_bytes(source.size()) + ", more than the " +
                      describe_bytes(limits::kScriptBytes) + " limit for a script");
  auto script = parse_script(file, source);
  if (!script) return script.error();
  auto checked = check_script(*script, host);
  if (!checked) return checked.error();
  return compile_program(*checked, host);
}

Result<Program> compile_script_file(const std::string& file, const std::vector<HostSignature>& host) {
  auto text = read_input_file(file, limits::kScriptBytes, "script");
  if (!text) return text.error();
  return compile_script(file, *text, host);
}

}  // namespace kiln::lang
