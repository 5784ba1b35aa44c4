#pragma once
// Files as tests read and write them: whole, in binary; and the sample project copied somewhere a
// test may edit it.

#include <filesystem>
#include <string>

#include "temp_dir.h"

namespace kiln::test {

// The bytes of `p`; empty when it cannot be read.
std::string slurp(const std::filesystem::path& p);
// Replaces `p` with `bytes`.
void spit(const std::filesystem::path& p, const std::string& bytes);
// Changes the byte in the middle of `p` in place (the file keeps its size and inode): damage a
// checksum must find.
void flip_middle_byte(const std::filesystem::path& p);
// Replaces `p` with an executable shell script running `body`: a stand-in for a worker program
// that does what the real one never would (crash, hang, answer garbage).
void spit_script(const std::filesystem::path& p, const std::string& body);
// A private copy of the repository's sample project (assets/) at `dir / name`.
std::filesystem::path copy_assets(const TempDir& dir, const std::string& name = "project");

}  // namespace kiln::test
