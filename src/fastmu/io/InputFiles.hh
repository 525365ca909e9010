// The files a command reads, by identity (device and inode, not by name), so
// that no output replaces one of them: `run --muons s.csv --out s.csv`, a
// hard link or a symbolic link to the geometry, a field map named inside it.
#pragma once

#include <filesystem>
#include <string>

namespace fastmu::io {

// Starts recording the inputs of this process (the command line does; a
// Python session does not, so that it may write a file it read earlier).
void track_inputs();
// Records `path` as read by this process (nothing when not tracking or when
// it does not exist). Called by every reader where it opens its file.
void note_input(const std::filesystem::path& path);
// The recorded input that is the same file as `path` (followed through
// links), or empty.
std::string input_same_as(const std::filesystem::path& path);
// Throws fastmu::Error naming `what` and the input when `path` is one of the
// recorded inputs.
void refuse_input_as_output(const std::filesystem::path& path, const std::string& what);

}  // namespace fastmu::io
