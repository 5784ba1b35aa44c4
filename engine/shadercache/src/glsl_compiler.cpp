#include "kiln/shadercache/glsl_compiler.h"

#include <glslang/Public/ResourceLimits.h>
#include <glslang/Public/ShaderLang.h>
#include <glslang/SPIRV/GlslangToSpv.h>
#include <glslang/build_info.h>

#include <algorithm>
#include <mutex>
#include <optional>
#include <cctype>
#include <set>
#include <sstream>

#include "include_resolver.h"

namespace kiln::shadercache {
namespace fs = std::filesystem;
namespace {

void initialise_glslang_once() {
  static std::once_flag once;
  // Builds the built-in symbol tables once per process (about 175 ms); never finalised, since
  // compiles may run on any thread until exit.
  std::call_once(once, [] { glslang::InitializeProcess(); });
}

EShLanguage to_glslang(Stage s) {
  switch (s) {
    case Stage::kVertex: return EShLangVertex;
    case Stage::kTessControl: return EShLangTessControl;
    case Stage::kTessEval: return EShLangTessEvaluation;
    case Stage::kGeometry: return EShLangGeometry;
    case Stage::kFragment: return EShLangFragment;
    case Stage::kCompute: return EShLangCompute;
    case Stage::kTask: return EShLangTask;
    case Stage::kMesh: return EShLangMesh;
    case Stage::kRayGen: return EShLangRayGen;
    case Stage::kIntersection: return EShLangIntersect;
    case Stage::kAnyHit: return EShLangAnyHit;
    case Stage::kClosestHit: return EShLangClosestHit;
    case Stage::kMiss: return EShLangMiss;
    case Stage::kCallable: return EShLangCallable;
  }
  return EShLangFragment;
}

// Resolves includes with the rule the content key uses, serving the snapshot's bytes when there is
// one, and records what was read.
class Includer final : public glslang::TShader::Includer {
 public:
  Includer(IncludeRules rules, const std::map<fs::path, std::string>* snapshot)
      : rules_(std::move(rules)), snapshot_(snapshot) {}

  IncludeResult* includeLocal(const char* header, const char* includer, size_t depth) override {
    return include(header, includer, depth);
  }
  IncludeResult* includeSystem(const char* header, const char* includer, size_t depth) override {
    return include(header, includer, depth);
  }
  void releaseInclude(IncludeResult* result) override {
    if (!result) return;
    delete static_cast<std::string*>(result->userData);
    delete result;
  }
  std::vector<fs::path> files;
  bool outside_snapshot = false;

 private:
  static constexpr size_t kMaxDepth = 64;  // an include cycle without guards ends here, as an error

  IncludeResult* include(const char* header, const char* includer, size_t depth) {
    if (depth > kMaxDepth) return nullptr;
    // glslang includes depth-first in text order: the files open above this one are the chain's
    // first depth - 1 entries (the stage file first), and `includer` ends it.
    chain_.resize(std::max<size_t>(depth, 1));
    chain_.back() = fs::path(includer);
    std::string refusal;
    auto found = resolve_include(header, chain_, rules_, &refusal);
    if (!found) {
      if (refusal.empty()) return nullptr;  // glslang reports "Could not process include directive"
      // An empty header name tells glslang the include failed; the text is its message.
      auto* message = new std::string(refusal);
      return new IncludeResult("", message->data(), message->size(), message);
    }
    const fs::path& candidate = *found;
    auto* text = new std::string;
    bool read = false;
    if (snapshot_) {
      if (auto it = snapshot_->find(candidate); it != snapshot_->end()) {
        *text = it->second;
        read = true;
      }
    }
    std::string unreadable;
    if (!read) {
      if (auto from_disk = read_shader_file(candidate)) {
        *text = std::move(*from_disk);
        read = true;
        if (snapshot_) outside_snapshot = true;
      } else {
        unreadable = from_disk.error().message;
      }
    }
    if (!read) {
      if (unreadable.empty()) unreadable = candidate.string() + ": cannot read the include";
      *text = std::move(unreadable);  // why, as glslang's message: a FIFO, a directory, too large
      return new IncludeResult("", text->data(), text->size(), text);
    }
    if (seen_.insert(candidate).second) files.push_back(candidate);
    chain_.push_back(candidate);
    return new IncludeResult(candidate.string(), text->data(), text->size(), text);
  }
  IncludeRules rules_;
  const std::map<fs::path, std::string>* snapshot_;
  std::set<fs::path> seen_;
  IncludeChain chain_;  // the files open while glslang reads this include, the stage file first
};

// glslang's "'' :  syntax error, unexpected IDENTIFIER " (an empty token, a double space, a trailing
// space) -> "syntax error, unexpected IDENTIFIER".
std::string tidy_message(std::string message) {
  while (!message.empty() && std::isspace(static_cast<unsigned char>(message.back()))) message.pop_back();
  if (message.rfind("'' :", 0) == 0) {
    std::size_t start = 4;
    while (start < message.size() && message[start] == ' ') ++start;
    message.erase(0, start);
  }
  return message;
}

// glslang's HLSL parser ends with "path(12): error at column 47, HLSL parsing failed." after the
// errors that say why: the same place, in the form of every other line.
std::optional<std::string> rewrite_hlsl_parse_failure(const std::string& line) {
  const std::string tail = ", HLSL parsing failed.";
  const std::size_t open = line.rfind("): error at column ");
  if (open == std::string::npos || line.size() < tail.size() ||
      line.compare(line.size() - tail.size(), tail.size(), tail))
    return std::nullopt;
  const std::size_t paren = line.rfind('(', open);
  if (paren == std::string::npos) return std::nullopt;
  const std::string number = line.substr(paren + 1, open - paren - 1);
  if (number.empty() || number.find_first_not_of("0123456789") != std::string::npos) return std::nullopt;
  const std::size_t column_at = open + std::string("): error at column ").size();
  const std::string column = line.substr(column_at, line.size() - tail.size() - column_at);
  return line.substr(0, paren) + ":" + number + ": error: HLSL parsing failed at column " + column + "\n";
}

// "ERROR: path:12: 'x' : undeclared identifier" -> "path:12: error: 'x' : undeclared identifier".
// Parsed by hand: the first ":<digits>: " after the severity ends the path.
std::string rewrite_log(const std::string& log, const fs::path& file) {
  std::string out;
  std::istringstream lines(log);
  for (std::string line; std::getline(lines, line);) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty()) continue;
    std::string severity, rest;
    if (line.rfind("ERROR: ", 0) == 0) {
      severity = "error";
      rest = line.substr(7);
    } else if (line.rfind("WARNING: ", 0) == 0) {
      severity = "warning";
      rest = line.substr(9);
    } else if (auto hlsl = rewrite_hlsl_parse_failure(line)) {
      out += *hlsl;
      continue;
    } else {
      out += file.string() + ": " + line + "\n";
      continue;
    }
    // glslang's closing count ("ERROR: 2 compilation errors.  No code generated.") says nothing new.
    if (rest.find(" compilation errors.") != std::string::npos ||
        rest.find(" compilation warnings.") != std::string::npos)
      continue;
    bool located = false;
    for (std::size_t colon = rest.find(':'); colon != std::string::npos; colon = rest.find(':', colon + 1)) {
      std::size_t d = colon + 1;
      while (d < rest.size() && std::isdigit(static_cast<unsigned char>(rest[d]))) ++d;
      if (d > colon + 1 && rest.compare(d, 2, ": ") == 0) {
        const std::string message = tidy_message(rest.substr(d + 2));
        // "'' : compilation terminated" follows a fatal error and names nothing.
        if (message != "compilation terminated") out += rest.substr(0, d) + ": " + severity + ": " + message + "\n";
        located = true;
        break;
      }
    }
    if (!located) out += file.string() + ": " + severity + ": " + rest + "\n";
  }
  return out;
}

}  // namespace

namespace {

// The settings of `glslangValidator -V --target-env <env>`, so that the output is the same.
std::pair<glslang::EShTargetClientVersion, glslang::EShTargetLanguageVersion> glslang_target(TargetEnv env) {
  switch (env) {
    case TargetEnv::kVulkan1_0: return {glslang::EShTargetVulkan_1_0, glslang::EShTargetSpv_1_0};
    case TargetEnv::kVulkan1_1: return {glslang::EShTargetVulkan_1_1, glslang::EShTargetSpv_1_3};
    case TargetEnv::kVulkan1_2: return {glslang::EShTargetVulkan_1_2, glslang::EShTargetSpv_1_5};
    case TargetEnv::kVulkan1_3: return {glslang::EShTargetVulkan_1_3, glslang::EShTargetSpv_1_6};
  }
  return {glslang::EShTargetVulkan_1_0, glslang::EShTargetSpv_1_0};
}

}  // namespace

std::string glslang_version() {
  return "glslang " + std::to_string(GLSLANG_VERSION_MAJOR) + "." + std::to_string(GLSLANG_VERSION_MINOR) + "." +
         std::to_string(GLSLANG_VERSION_PATCH);
}

Result<GlslOutput> compile_glsl(const GlslInput& input) {
  const bool hlsl = input.language == SourceLanguage::kHlsl;
  // Without a #version glslang assumes ES 100 and says "ES shaders for SPIR-V require version 310",
  // with no line: name the actual problem. HLSL has no #version.
  if (!hlsl && input.source.find("#version") == std::string::npos) {
    const bool blank = input.source.find_first_not_of(" \t\r\n") == std::string::npos;
    return make_error(input.file.string() + ":1: error: " +
                      (blank ? "the file is empty (a stage needs a #version directive and main)"
                             : "no #version directive (Vulkan GLSL needs one, such as #version 450)"));
  }
  if (!hlsl && !input.entry.empty() && input.entry != "main")
    return make_error(input.file.string() + ": error: a GLSL stage starts at main; an entry point (" + input.entry +
                      ") can be chosen for HLSL stages only");
  initialise_glslang_once();
  const EShLanguage lang = to_glslang(input.stage);
  const auto [client, spirv_version] = glslang_target(input.target);
  const auto messages =
      static_cast<EShMessages>(EShMsgSpvRules | EShMsgVulkanRules | (hlsl ? EShMsgReadHlsl : EShMsgDefault));
  const std::string entry = input.entry.empty() ? "main" : input.entry;

  std::string preamble;
  for (const std::string& d : input.defines) {
    const auto eq = d.find('=');
    preamble += eq == std::string::npos ? "#define " + d + " 1\n"
                                        : "#define " + d.substr(0, eq) + " " + d.substr(eq + 1) + "\n";
  }

  glslang::TShader shader(lang);
  const std::string name = input.file.string();
  const char* text = input.source.c_str();
  const int length = static_cast<int>(input.source.size());
  const char* names[] = {name.c_str()};
  shader.setStringsWithLengthsAndNames(&text, &length, names, 1);
  shader.setPreamble(preamble.c_str());
  if (hlsl) shader.setEntryPoint(entry.c_str());
  shader.setEnvInput(hlsl ? glslang::EShSourceHlsl : glslang::EShSourceGlsl, lang, glslang::EShClientVulkan, 100);
  shader.setEnvClient(glslang::EShClientVulkan, client);
  shader.setEnvTarget(glslang::EShTargetSpv, spirv_version);

  Includer includer({input.include_dirs, input.include_roots}, input.snapshot);
  const bool parsed = shader.parse(GetDefaultResources(), 100, false, messages, includer);
  std::string log = rewrite_log(shader.getInfoLog(), input.file);
  if (!parsed && log.find("not supported for current targeted SPIR-V version") != std::string::npos &&
      runtime::pipeline_kind(input.stage) != runtime::PipelineKind::kGraphics &&
      runtime::pipeline_kind(input.stage) != runtime::PipelineKind::kCompute)
    // glslang says what, not how to get it: these stages need SPIR-V 1.4.
    log += name +
           ": note: task, mesh and ray-tracing stages need SPIR-V 1.4: a target of vulkan1.2 or later "
           "(--target-env, or the target in kiln.json)\n";
  if (!parsed) return make_error(log.empty() ? name + ": error: compilation failed" : log.substr(0, log.size() - 1));

  glslang::TProgram program;
  program.addShader(&shader);
  if (!program.link(messages) || !program.mapIO()) {
    log += rewrite_log(program.getInfoLog(), input.file);
    return make_error(log.empty() ? name + ": error: link failed" : log.substr(0, log.size() - 1));
  }
  if (hlsl && std::string(program.getInfoLog()).find("Entry point not found") != std::string::npos)
    // glslang warns and writes an empty stage; nothing would run.
    return make_error(name + ": error: no function " + entry + " to start the " + std::string(stage_name(input.stage)) +
                      " stage at (the entry point is main unless #pragma kiln entry or --entry names another)");
  GlslOutput out;
  spv::SpvBuildLogger logger;
  glslang::SpvOptions options;
  // As glslangValidator: the optimizer is on, which changes nothing for GLSL but legalises HLSL's
  // SPIR-V for Vulkan (opaque types out of structs and function parameters).
  options.disableOptimizer = false;
  glslang::GlslangToSpv(*program.getIntermediate(lang), out.spirv, &logger, &options);
  const std::string spv_messages = logger.getAllMessages();
  if (!spv_messages.empty()) log += rewrite_log(spv_messages, input.file);
  out.includes = std::move(includer.files);
  out.read_outside_snapshot = includer.outside_snapshot;
  out.warnings = std::move(log);
  return out;
}

}  // namespace kiln::shadercache
