// A laboratory's overburden: a named rock (or a custom composition) and a
// flat depth, as the `fastmu underground` options and fastmu.underground()
// give them, resolved to a material of the library and a depth in m.w.e.
// (hg/cm^2) of that material.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace fastmu {
class MaterialLibrary;
}

namespace fastmu::underground {

struct OverburdenSpec {
  std::string rock = "standard_rock";         // a named rock, or the custom material's name
  double density = 0;                         // g/cm3; 0: the rock's own
  std::map<std::string, double> composition;  // mass fractions by element (custom rock)
  double depth_mwe = 0;                       // one of depth_mwe and rock_depth_m is > 0
  double rock_depth_m = 0;                    // metres of rock (times the density: m.w.e.)
  std::vector<double> depths_mwe;             // depth list for vertical intensities
};

struct Overburden {
  std::string material;     // name in the library
  double density = 0;       // g/cm3 the depth in metres was converted with
  double depth_mwe = 0;     // 0 when only a depth list was given
  std::string description;  // one line: rock, composition's source
};

// The named rocks: standard_rock, salt, norite, granite, water, ice, sea_water.
std::vector<std::string> named_rocks();
// "O:0.46,Si:0.28" -> {{"O", 0.46}, {"Si", 0.28}}; throws naming `option`.
std::map<std::string, double> parse_composition(const std::string& text, const std::string& option);

// Checks the spec (one line naming the bad option) and adds a custom rock
// (or salt) to `materials` if needed. The depth list holds at most 20
// depths; every depth must lie in [1, depth_max_mwe].
Overburden resolve_overburden(const OverburdenSpec& spec, MaterialLibrary& materials,
                              double depth_max_mwe);

}  // namespace fastmu::underground
