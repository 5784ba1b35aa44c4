#include "script_host.h"

#include <system_error>

#include "kiln/materials/material.h"

namespace kiln::cli {
namespace fs = std::filesystem;

std::vector<runtime::ParameterFunction> project_parameter_functions(const fs::path& root) {
  std::vector<runtime::MaterialRecord> records;
  std::error_code ec;
  for (fs::recursive_directory_iterator it(root / "materials", ec), end; !ec && it != end; it.increment(ec)) {
    if (!it->is_regular_file(ec) || it->path().extension() != ".json") continue;
    auto material = materials::load_material(it->path().string());
    if (!material) continue;
    runtime::MaterialRecord record;
    record.file = it->path().lexically_relative(root).generic_string();
    record.params = material->params;
    records.push_back(std::move(record));
  }
  return runtime::parameter_functions(records);
}

fs::path project_of_script(const fs::path& script) {
  std::error_code ec;
  fs::path dir = fs::absolute(script, ec).parent_path();
  for (; !dir.empty(); dir = dir.parent_path()) {
    if (fs::is_directory(dir / "materials", ec)) return dir;
    if (dir == dir.root_path()) break;
  }
  return {};
}

void bind_without_renderer(jit::Vm& vm, const jit::Program& program) {
  for (const auto& host : program.host) vm.bind(host.name, [](std::span<const double>) { return 0.0; });
}

}  // namespace kiln::cli
