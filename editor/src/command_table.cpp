#include "command_table.h"

#include "kiln/cache/cache_kinds.h"
#include "kiln/runtime/shader_target.h"

namespace kiln::cli {
namespace {

const Switch kJson{"--json", "machine-readable output (JSON) on standard output"};

}  // namespace

const std::vector<Command>& command_table() {
  // The kinds from the one list the store keeps (cache_kinds.h), never spelt out here.
  static const std::string kind_help = "only this kind: " + cache::cache_kind_names();
  // The backends and environments likewise, from their tables (kiln/runtime/shader_target.h).
  static const std::string target_env_help = runtime::target_env_names() + " (default vulkan1.0)";
  static const std::string backend_help = runtime::backend_names() + " (default spirv)";
  const std::vector<ValueOption> shader_options = {
      {"--keywords", "the variant's keywords, comma-separated: FOG,SKIN"},
      {"--pass", "the pass (default: the first the shader declares)"},
      {"-D", "a define, NAME or NAME=VALUE (also joined: -DNAME=VALUE)", true},
      {"-I", "an include directory (also joined: -Idir)", true},
      {"--root", "the root the shader is named under (default: the project above it, else its directory)"},
      {"--target-env", target_env_help.c_str()},
      {"--backend", backend_help.c_str()},
      {"--entry", "an HLSL stage's entry point, over its #pragma kiln entry (default main)"},
      {"-o",
       "output: a file (one per stage: lit.vert.spv, lit.frag.spv) or a directory (out/); for reflect, "
       "the JSON file"}};
  static const std::vector<Command> table = {
      {{"info"},
       "the version and the resolved configuration",
       {},
       {},
       {kJson},
       "kiln info",
       &run_settings_command,
       nullptr},
      {{"version"}, "the version", {}, {}, {kJson}, "kiln version", &run_settings_command, nullptr},
      {{"config"},
       "each setting with its value and where the value came from",
       {},
       {},
       {kJson},
       "kiln config --json --cache-root /tmp/cache",
       &run_settings_command,
       nullptr},
      {{"cache", "stats"},
       "entries, bytes, hits, misses and evictions of each persistent cache",
       {},
       {{"--kind", kind_help.c_str()}},
       {kJson},
       "kiln cache stats --kind shaders",
       nullptr,
       "kiln_tools_cache"},
      {{"cache", "verify"},
       "check every cached entry, deleting the ones that fail",
       {},
       {},
       {kJson},
       "kiln cache verify",
       nullptr,
       "kiln_tools_cache"},
      {{"cache", "prune"},
       "apply the size cap and the build limit to every kind at once",
       {},
       {},
       {kJson},
       "kiln cache prune",
       nullptr,
       "kiln_tools_cache"},
      {{"cache", "clear"},
       "remove every entry that no running tool uses",
       {},
       {{"--kind", kind_help.c_str()}},
       {kJson},
       "kiln cache clear --kind textures",
       nullptr,
       "kiln_tools_cache"},
      {{"shader", "compile"},
       "one variant of every stage of a shader, through the variant cache",
       {{"shader", "a shader (shaders/lit for lit.vert + lit.frag, or lit.frag.hlsl) or one stage file"}},
       shader_options,
       {kJson},
       "kiln shader compile shaders/lit --keywords FOG --pass Forward -o out/",
       nullptr,
       "kiln_tools_shader"},
      {{"shader", "reflect"},
       "every stage's reflection: bindings, block members, inputs, outputs",
       {{"shader", "a shader (shaders/lit for lit.vert + lit.frag, or lit.frag.hlsl) or one stage file"}},
       shader_options,
       {kJson},
       "kiln shader reflect shaders/lit --json",
       nullptr,
       "kiln_tools_shader"},
      {{"probe", "variants"},
       "a self-test of the variant cache's keys and invalidation (it uses no project)",
       {},
       {},
       {},
       "kiln probe variants",
       nullptr,
       "kiln_tools_probe"},
      {{"script", "run"},
       "run a script: interpreted, hot pages compiled or loaded from the page cache",
       {{"script", "a .lua file in Kiln's subset"}},
       {{"--budget", "stop after this many instructions (0: no limit)", false, ValueOption::kCount},
        {"--jit", "on or off (default on)"},
        {"--mode", "checked or unchecked (default checked)"}},
       {{"--stats", "the page runtime's statistics on standard error"}, kJson},
       "kiln script run scripts/gameplay_update.lua --stats",
       &run_script_command,
       nullptr},
      {{"script", "disasm"},
       "a script's bytecode, page by page",
       {{"script", "a .lua file in Kiln's subset"}},
       {},
       {},
       "kiln script disasm scripts/gameplay_update.lua",
       &run_script_command,
       nullptr},
      {{"editor"},
       "watch a project and rebuild what each edit changes, one line per event, until SIGINT/SIGTERM",
       {{"project", "the project directory"}},
       {{"--serve",
         "[ADDR:]PORT: also serve a live page of the project to a browser (ADDR 127.0.0.1 unless given, port 0 "
         "picks one; the URL with its token is printed); implies --previews"},
        {"--record-usage",
         "record the variants and pipelines of every material the previews draw into FILE (a usage record, as "
         "kiln-player --record-usage), written after each edit's pictures and when the editor stops"}},
       {kJson,
        {"--stdin", "also take commands from standard input: status, quit"},
        {"--previews", "render a material's preview after each edit of it (needs a Vulkan device)"},
        {"--serve-read-only", "the page shows the project but may not change material files"}},
       "kiln editor assets --json",
       nullptr,
       "kiln_tools_editor"},
      {{"cook"},
       "validate a project and build its variants, scripts and textures into packs",
       {{"project", "the project directory"}},
       {{"--out", "the output directory (required, except for a shard)"},
        {"--report", "also write the report (JSON) to this file"},
        {"--shard",
         "i/N: build only this machine's part (from 1) of the variants and textures into the cache "
         "(a farm sharing cache.remote); writes no packs"},
        {"--shard-count", "N, when the shard index comes from JOB_COMPLETION_INDEX", false, ValueOption::kWhole},
        {"--sign",
         "sign the set's manifest with this Ed25519 private key (kiln key generate; as cook.sign_key): the "
         "manifest commits to every pack by its SHA-256"},
        {"--usage",
         "ship what this usage record (kiln-player --record-usage) names: the variants it used, and those "
         "`#pragma kiln ship ... always` declares; repeat for several (their union)",
         true}},
       {{"--verify", "recompile what the caches served; fail on a difference"},
        {"--usage-lenient",
         "with --usage: leave out the materials no record uses instead of failing on their variants"},
        {"--previews", "also render a picture of every material into <out>/previews (needs a Vulkan device)"},
        kJson},
       "kiln cook assets --out build/cooked --report build/cook-report.json",
       nullptr,
       "kiln_tools_cook"},
      {{"key", "generate"},
       "a new Ed25519 key pair to sign cooked sets with: FILE (private, mode 0600) and FILE.pub; with --remote, "
       "a farm's remote cache key instead (32 random bytes, mode 0600)",
       {{"file", "the private key file to create (never overwritten)"}},
       {},
       {{"--remote", "a remote cache key (cache.remote_key) instead of a signing key pair"}, kJson},
       "kiln key generate keys/release.key",
       nullptr,
       "kiln_tools_key"},
      {{"set", "verify"},
       "check a cooked set: its signature against the trusted keys, every pack's SHA-256, every entry; "
       "prints who signed it",
       {{"dir", "a cooked set's directory"}},
       {{"--trust", "a public key (.pub) the set must be signed by (default: player.trusted_keys)", true}},
       {kJson},
       "kiln set verify build/cooked --trust keys/release.key.pub",
       nullptr,
       "kiln_tools_set"},
      {{"usage", "show"},
       "what a usage record holds: its variants, pipelines, hot script pages and texture levels",
       {{"file", "a usage record (kiln-player --record-usage)"}},
       {},
       {kJson},
       "kiln usage show build/usage.json",
       nullptr,
       "kiln_tools_usage"},
      {{"usage", "merge"},
       "the union of usage records from many runs and machines, into one",
       {{"records", "the usage records to merge", true}},
       {{"-o", "the record to write (required)"}},
       {kJson},
       "kiln usage merge run1.json run2.json -o usage.json",
       nullptr,
       "kiln_tools_usage"},
      {{"texture", "info"},
       "levels, tile grids, format, wrap modes and maketx metadata of a .tx; format, block size and levels of "
       "a block-compressed texture (as kiln texture extract writes it)",
       {{"file", "a .tx file, or a compressed texture"}},
       {},
       {kJson},
       "kiln texture info textures/brick.tx",
       nullptr,
       "kiln_tools_texture"},
      {{"texture", "export"},
       "one mip level as an RGBA PNG, read through the tile cache; a block-compressed texture decoded to PNG, "
       "or written whole as DDS (BC) or one level as .astc (ASTC)",
       {{"texture", "a .tx, a plain image or a compressed texture"}, {"out", "the .png, .dds or .astc to write"}},
       {{"--level", "the mip level (default 0, the largest)", false, ValueOption::kCount}},
       {},
       "kiln texture export textures/brick.png --level 2 brick-2.png",
       nullptr,
       "kiln_tools_texture"},
      {{"texture", "thumb"},
       "a thumbnail from the smallest level at least as wide",
       {{"texture", "a .tx or a plain image"}, {"out", "the PNG to write"}},
       {{"--size", "the thumbnail's width in pixels (default 256)", false, ValueOption::kWhole}},
       {},
       "kiln texture thumb textures/brick.png --size 64 brick-thumb.png",
       nullptr,
       "kiln_tools_texture"},
      {{"texture", "extract"},
       "what a cooked set ships for a texture, as a file: a .tx (for texture info, iinfo, oiiotool) or a "
       "block-compressed texture (for texture info and export)",
       {{"set", "a cooked set's directory"},
        {"texture", "the texture as materials name it"},
        {"out", "the .tx to write"}},
       {{"--target", "the cook target whose copy to take (default: the set's first)"}},
       {},
       "kiln texture extract ../mygame-cooked textures/brick.png brick.tx",
       nullptr,
       "kiln_tools_texture"},
  };
  return table;
}

const std::vector<CommandGroup>& command_groups() {
  static const std::vector<CommandGroup> groups = {
      {"cache", "the persistent caches: stats, verify, prune, clear"},
      {"shader", "shader variants: compile, reflect"},
      // A self-test of the variant cache, for Kiln's own checks: it runs, but a user's help does
      // not list it next to the commands that work on a project.
      {"probe", "self-tests of Kiln's caches (not of a project): variants", false},
      {"script", "scripts: run, disasm"},
      {"texture", "textures: info, export, thumb, extract"},
      {"key", "keys: generate (signing cooked sets, keying the remote cache)"},
      {"set", "cooked sets: verify"},
      {"usage", "usage records of the game's runs: show, merge"},
  };
  return groups;
}

const Command* find_command(const std::vector<std::string>& words) {
  for (const Command& c : command_table()) {
    bool named = words.size() >= c.path.size();
    for (std::size_t i = 0; named && i < c.path.size(); ++i) named = words[i] == c.path[i];
    if (named) return &c;
  }
  return nullptr;
}

}  // namespace kiln::cli
