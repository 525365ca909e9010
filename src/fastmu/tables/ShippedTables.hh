// Where the tables shipped with fastmu are (TableCache.hh says how they serve).
#pragma once

#include <filesystem>

namespace fastmu {

// The first folder of data/tables that exists beside the code running: the
// Python module's package (fastmu/data/tables), the program's pip package
// (fastmu/_bin/../data/tables), an install (<prefix>/share/fastmu/data/tables),
// else the source tree this fastmu was built from. Empty when none exists.
std::filesystem::path find_shipped_tables();

}  // namespace fastmu
