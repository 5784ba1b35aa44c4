// Which stages make a pipeline together, read from a variant's stage names alone: what a renderer
// checks before it reads the interface, for any pack, a hostile one included.

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "kiln/runtime/shader_interface.h"

using namespace kiln;
using runtime::PipelineKind;

namespace {

Result<PipelineKind> kind_of(const std::vector<std::string>& stages) {
  runtime::VariantRecord v;
  for (const auto& s : stages) v.stages.push_back({s, "x." + s, {}, {}, ""});
  return runtime::pipeline_of(v);
}

std::string error_of(const std::vector<std::string>& stages) {
  auto kind = kind_of(stages);
  return kind ? std::string("(no error)") : kind.error().message;
}

}  // namespace

TEST_SUITE("runtime") {
  TEST_CASE("stages make one pipeline - a ray-tracing set - or one hit group - miss or callable stage to add to one") {
    CHECK(kind_of({"vert", "frag"}).value() == PipelineKind::kGraphics);
    CHECK(kind_of({"task", "mesh", "frag"}).value() == PipelineKind::kMesh);
    CHECK(kind_of({"comp"}).value() == PipelineKind::kCompute);
    CHECK(kind_of({"rgen", "rmiss", "rchit", "rcall"}).value() == PipelineKind::kRayTracing);
    CHECK(kind_of({"rgen"}).value() == PipelineKind::kRayTracing);
    CHECK(kind_of({"rint", "rahit", "rchit"}).value() == PipelineKind::kRayTracing);  // a procedural hit group
    CHECK(kind_of({"rahit"}).value() == PipelineKind::kRayTracing);
    CHECK(kind_of({"rmiss"}).value() == PipelineKind::kRayTracing);
    CHECK(kind_of({"rcall"}).value() == PipelineKind::kRayTracing);

    CHECK(error_of({"rmiss", "rchit"}) ==
          "ray-tracing stages without a rgen stage make one hit group (rchit, rahit, rint), one miss or one callable "
          "stage, not several");
    CHECK(error_of({"rmiss", "rcall"}).find("not several") != std::string::npos);
    CHECK(kind_of({"rint"}).value() == PipelineKind::kRayTracing);  // a procedural group may have no hit stage
    CHECK(error_of({"vert", "rchit"}).find("mixed") != std::string::npos);
    // A pack may name anything: a stage no table has is an error, not a lookup past the table.
    CHECK(error_of({"vert", "hull"}) == "stage hull is not a stage Kiln knows");
  }
}
