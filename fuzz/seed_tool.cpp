// kiln-fuzz-seeds <cooked dir> <corpus dir>: writes seed inputs for the fuzz targets from a cooked
// set — the programs (bytecode), compiled pages, variant and material records, reflection, the manifest and the packs — so
// what the loaders read in a real cook is what fuzzing starts from. scripts/make_fuzz_seeds.sh runs it.
#include <cstdio>
#include <fstream>
#include <string>

#include "kiln/runtime/cooked_set.h"
#include "kiln/runtime/pack.h"
#include "kiln/runtime/variant_record.h"

namespace fs = std::filesystem;
using namespace kiln::runtime;

namespace {

void write(const fs::path& file, std::span<const std::byte> bytes, int prefix = -1) {
  fs::create_directories(file.parent_path());
  std::ofstream out(file, std::ios::binary | std::ios::trunc);
  if (prefix >= 0) out.put(char(prefix));
  out.write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) return std::fprintf(stderr, "usage: kiln-fuzz-seeds <cooked dir> <corpus dir>\n"), 2;
  const fs::path corpus = argv[2];
  auto set = CookedSet::open(argv[1]);
  if (!set) return std::fprintf(stderr, "%s\n", set.error().message.c_str()), 1;
  int n = 0;
  for (const auto& file : (*set)->ids(EntryKind::kProgram))
    if (auto p = (*set)->program(file)) write(corpus / "bytecode" / ("program-" + std::to_string(n++)), *p);
  n = 0;
  for (const auto& name : (*set)->ids(EntryKind::kMaterial)) {
    const Pack& pack = (*set)->pack(PackKind::kShaders);
    if (auto bytes = pack.find(entry_name(EntryKind::kMaterial, name)); bytes && *bytes)
      write(corpus / "pack_records" / ("material-" + std::to_string(n++)), **bytes, 1);
  }
  n = 0;
  for (const auto& id : (*set)->ids(EntryKind::kVariant)) {
    if (n >= 6) break;  // a few of each: the fuzzer mutates from there
    const Pack& pack = (*set)->pack(PackKind::kShaders);
    if (auto bytes = pack.find(entry_name(EntryKind::kVariant, id)); bytes && *bytes)
      write(corpus / "pack_records" / ("variant-" + std::to_string(n++)), **bytes, 0);
  }
  // Reflection as the renderer reads it: one graphics and one compute variant's first stage.
  bool graphics = false, compute = false;
  for (const auto& id : (*set)->ids(EntryKind::kVariant)) {
    auto bytes = (*set)->pack(PackKind::kShaders).find(entry_name(EntryKind::kVariant, id));
    if (!bytes || !*bytes) continue;
    auto v = decode_variant_record(**bytes, id);
    if (!v || v->stages.empty()) continue;
    const bool is_compute = v->stage("comp") != nullptr;
    if (is_compute ? compute : graphics) continue;
    (is_compute ? compute : graphics) = true;
    const std::string reflection = encode_reflection(v->stages.front().reflection);
    write(corpus / "reflection" / (is_compute ? "compute" : "graphics"), std::as_bytes(std::span(reflection)),
          is_compute ? 1 : 0);
  }
  n = 0;
  for (const auto& id : (*set)->ids(EntryKind::kPage)) {
    if (n >= 4) break;
    const Pack& pack = (*set)->pack(PackKind::kScripts);
    if (auto bytes = pack.find(entry_name(EntryKind::kPage, id)); bytes && *bytes)
      write(corpus / "aot_page" / ("page-" + std::to_string(n++)), **bytes);
  }
  std::ifstream manifest(fs::path(argv[1]) / "manifest.json", std::ios::binary);
  const std::string text((std::istreambuf_iterator<char>(manifest)), {});
  write(corpus / "pack_records" / "manifest", std::as_bytes(std::span(text)), 2);
  const auto& packs = (*set)->manifest().packs;
  if (auto it = packs.find(PackKind::kScripts); it != packs.end()) {
    std::ifstream in(fs::path(argv[1]) / it->second.file, std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(in)), {});
    write(corpus / "pack_bytes" / "scripts-pack", std::as_bytes(std::span(bytes)), int(PackKind::kScripts) - 1);
  }
  return 0;
}
