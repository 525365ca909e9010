// GDML reader: pugixml parses, this file interprets the subset fastmu models.
// Conventions follow Geant4's GDML reader (G4GDMLRead*): lengths default to
// mm, angles to rad, densities to g/cm3, atomic masses to g/mole; box/trd/trap
// sizes are full lengths (halved on reading), arb8 dz is a half length; a
// physvol rotation is the frame rotation, so the solid turns by -angle.
#include "fastmu/geometry/GdmlReader.hh"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <pugixml.hpp>

#include "fastmu/core/Error.hh"
#include "fastmu/io/InputFiles.hh"
#include "fastmu/materials/Material.hh"

namespace fastmu {

namespace {

using nlohmann::json;
constexpr double kPi = 3.14159265358979323846;

class GdmlContext {
 public:
  GdmlContext(std::string_view text, std::string source) : text_(text), source_(std::move(source)) {
    // Geant4's expression units (CLHEP: mm = 1, rad = 1).
    constants_ = {{"pi", kPi},           {"mm", 1},         {"cm", 10},         {"m", 1000},
                  {"km", 1e6},           {"um", 1e-3},      {"rad", 1},         {"deg", kPi / 180},
                  {"mrad", 1e-3},        {"millimeter", 1}, {"centimeter", 10}, {"meter", 1000},
                  {"degree", kPi / 180}, {"radian", 1},     {"twopi", 2 * kPi}};
  }

  int line_of(const pugi::xml_node& n) const {
    const std::ptrdiff_t off = n.offset_debug();
    if (off < 0) return 0;
    int line = 1;
    for (std::ptrdiff_t i = 0; i < off && i < static_cast<std::ptrdiff_t>(text_.size()); ++i) {
      if (text_[static_cast<std::size_t>(i)] == '\n') ++line;
    }
    return line;
  }
  [[noreturn]] void fail(const pugi::xml_node& n, const std::string& what) const {
    throw Error(fmt::format("{}:{}: <{}>: {}", source_, line_of(n), n.name(), what));
  }

  // A numeric expression: numbers, defined constants/variables, units,
  // + - * / ^ and parentheses (what GDML files written by Geant4 use).
  double eval(const pugi::xml_node& n, const std::string& expr) const {
    std::size_t pos = 0;
    depth_ = 0;  // a failed expression may have left guards unwound by an exception
    const double v = eval_sum(n, expr, pos);
    skip_ws(expr, pos);
    if (pos != expr.size()) fail(n, fmt::format("cannot evaluate '{}'", expr));
    if (!std::isfinite(v)) fail(n, fmt::format("'{}' is not finite", expr));
    return v;
  }
  double attr(const pugi::xml_node& n, const char* name) const {
    const pugi::xml_attribute a = n.attribute(name);
    if (!a) fail(n, fmt::format("missing attribute '{}'", name));
    return eval(n, a.value());
  }
  double attr_or(const pugi::xml_node& n, const char* name, double dflt) const {
    return n.attribute(name) ? attr(n, name) : dflt;
  }
  void define(const pugi::xml_node& n, const std::string& name, double v) {
    if (name.empty()) fail(n, "missing attribute 'name'");
    constants_[name] = v;
  }
  // Units of length per metre (divide by it: 1e3 * x / 1e3 stays x more often than with * 1e-3).
  double length_unit(const pugi::xml_node& n, const char* attr_name = "lunit") const {
    const std::string u = n.attribute(attr_name).as_string("mm");
    if (u == "mm") return 1000;
    if (u == "cm") return 100;
    if (u == "m") return 1;
    fail(n, fmt::format("unsupported length unit '{}' (expected mm, cm or m)", u));
  }
  // Radians per unit of angle.
  double angle_unit(const pugi::xml_node& n, const char* attr_name = "aunit") const {
    const std::string u = n.attribute(attr_name).as_string("rad");
    if (u == "rad") return 1;
    if (u == "deg") return kPi / 180;
    if (u == "mrad") return 1e-3;
    fail(n, fmt::format("unsupported angle unit '{}' (expected deg or rad)", u));
  }
  const std::string& source() const { return source_; }

 private:
  static void skip_ws(const std::string& s, std::size_t& p) {
    while (p < s.size() && std::isspace(static_cast<unsigned char>(s[p]))) ++p;
  }
  double eval_sum(const pugi::xml_node& n, const std::string& s, std::size_t& p) const {
    double v = eval_product(n, s, p);
    for (;;) {
      skip_ws(s, p);
      if (p < s.size() && (s[p] == '+' || s[p] == '-')) {
        const char op = s[p++];
        const double r = eval_product(n, s, p);
        v = op == '+' ? v + r : v - r;
      } else {
        return v;
      }
    }
  }
  double eval_product(const pugi::xml_node& n, const std::string& s, std::size_t& p) const {
    double v = eval_power(n, s, p);
    for (;;) {
      skip_ws(s, p);
      if (p < s.size() && (s[p] == '*' || s[p] == '/')) {
        const char op = s[p++];
        const double r = eval_power(n, s, p);
        v = op == '*' ? v * r : v / r;
      } else {
        return v;
      }
    }
  }
  // Each nesting level (parenthesis, unary sign, right-associative ^) is a
  // recursion: bound it so that a hostile file fails with one line instead of
  // overflowing the stack (100000 nested '(' crashed the reader).
  static constexpr int kMaxNesting = 256;
  struct NestingGuard {
    int& depth;
    NestingGuard(const GdmlContext& c, const pugi::xml_node& n, const std::string& s)
        : depth(c.depth_) {
      if (++depth > kMaxNesting) {
        c.fail(n, fmt::format("expression nested too deeply: '{:.40}...'", s));
      }
    }
    ~NestingGuard() { depth = depth > 0 ? depth - 1 : 0; }
  };
  double eval_power(const pugi::xml_node& n, const std::string& s, std::size_t& p) const {
    const double base = eval_unary(n, s, p);
    skip_ws(s, p);
    if (p < s.size() && s[p] == '^') {
      const NestingGuard guard(*this, n, s);
      ++p;
      return std::pow(base, eval_power(n, s, p));
    }
    return base;
  }
  double eval_unary(const pugi::xml_node& n, const std::string& s, std::size_t& p) const {
    skip_ws(s, p);
    if (p < s.size() && (s[p] == '-' || s[p] == '+')) {
      const NestingGuard guard(*this, n, s);
      const char op = s[p++];
      const double v = eval_unary(n, s, p);
      return op == '-' ? -v : v;
    }
    return eval_atom(n, s, p);
  }
  double eval_atom(const pugi::xml_node& n, const std::string& s, std::size_t& p) const {
    skip_ws(s, p);
    if (p >= s.size()) fail(n, fmt::format("cannot evaluate '{}'", s));
    if (s[p] == '(') {
      const NestingGuard guard(*this, n, s);
      ++p;
      const double v = eval_sum(n, s, p);
      skip_ws(s, p);
      if (p >= s.size() || s[p] != ')') fail(n, fmt::format("unbalanced parenthesis in '{}'", s));
      ++p;
      return v;
    }
    if (std::isdigit(static_cast<unsigned char>(s[p])) || s[p] == '.') {
      const char* begin = s.c_str() + p;
      char* end = nullptr;
      const double v = std::strtod(begin, &end);
      if (end == begin) fail(n, fmt::format("cannot evaluate '{}'", s));
      p += static_cast<std::size_t>(end - begin);
      return v;
    }
    if (std::isalpha(static_cast<unsigned char>(s[p])) || s[p] == '_') {
      const std::size_t b = p;
      while (p < s.size() && (std::isalnum(static_cast<unsigned char>(s[p])) || s[p] == '_')) ++p;
      const std::string id = s.substr(b, p - b);
      auto it = constants_.find(id);
      if (it == constants_.end()) fail(n, fmt::format("unknown constant '{}' in '{}'", id, s));
      return it->second;
    }
    fail(n, fmt::format("cannot evaluate '{}'", s));
  }

  std::string_view text_;
  std::string source_;
  std::map<std::string, double> constants_;
  mutable int depth_ = 0;  // current expression nesting (NestingGuard)
};

struct Xy {
  double x, y;
};

// A solid as fastmu sees it: a box (half sizes) or an ARB8 (8 vertices in
// metres, 4 at -dz then 4 at +dz, about its own centre).
struct Solid {
  bool is_box = true;
  double hx = 0, hy = 0, hz = 0;
  Xy v[8] = {};
  double dz = 0;
};

// Element or material composition as mass fractions by element symbol.
using Composition = std::map<std::string, double>;

struct MaterialDef {
  std::string name;
  bool builtin_ref = false;  // no definition needed: the name is a built-in material
  double density = 0;
  Composition fractions;
};

class GdmlTranslator {
 public:
  GdmlTranslator(std::string_view text, const std::string& source) : ctx_(text, source) {
    const pugi::xml_parse_result r = doc_.load_buffer(text.data(), text.size());
    if (!r) {
      // Line of the parse error from its byte offset.
      int line = 1;
      for (std::ptrdiff_t i = 0; i < r.offset && i < static_cast<std::ptrdiff_t>(text.size());
           ++i) {
        if (text[static_cast<std::size_t>(i)] == '\n') ++line;
      }
      throw Error(fmt::format("{}:{}: invalid XML: {}", source, line, r.description()));
    }
  }

  json translate() {
    const pugi::xml_node root = doc_.child("gdml");
    if (!root)
      throw Error(fmt::format("{}: not a GDML file (no <gdml> root element)", ctx_.source()));
    for (const pugi::xml_node& sec : root.children()) {
      if (sec.type() != pugi::node_element) continue;
      const std::string name = sec.name();
      if (name == "define") {
        read_define(sec);
      } else if (name == "materials") {
        read_materials(sec);
      } else if (name == "solids") {
        read_solids(sec);
      } else if (name == "structure") {
        structure_ = sec;
      } else if (name == "setup") {
        if (!setup_) setup_ = sec;  // Geant4 uses the first setup
      } else {
        ctx_.fail(sec, "unsupported GDML section");
      }
    }
    if (!structure_) throw Error(fmt::format("{}: no <structure> section", ctx_.source()));
    if (!setup_) throw Error(fmt::format("{}: no <setup> section", ctx_.source()));
    return build();
  }

 private:
  void read_define(const pugi::xml_node& sec) {
    for (const pugi::xml_node& d : sec.children()) {
      if (d.type() != pugi::node_element) continue;
      const std::string kind = d.name();
      const std::string name = d.attribute("name").as_string();
      if (kind == "constant" || kind == "variable") {
        ctx_.define(d, name, ctx_.attr(d, "value"));
      } else if (kind == "quantity") {
        // A quantity carries its unit: keep it in Geant4's internal units.
        double v = ctx_.attr(d, "value");
        if (d.attribute("unit")) v *= ctx_.eval(d, d.attribute("unit").value());
        ctx_.define(d, name, v);
      } else if (kind == "position") {
        if (name.empty()) ctx_.fail(d, "missing attribute 'name'");
        positions_[name] = read_position(d);
      } else if (kind == "rotation") {
        if (name.empty()) ctx_.fail(d, "missing attribute 'name'");
        rotations_[name] = read_rotation(d);
      } else {
        ctx_.fail(d, "unsupported define");
      }
    }
  }
  std::array<double, 3> read_position(const pugi::xml_node& p) const {
    const double u = ctx_.length_unit(p, "unit");
    return {ctx_.attr_or(p, "x", 0) / u, ctx_.attr_or(p, "y", 0) / u, ctx_.attr_or(p, "z", 0) / u};
  }
  // Only rotations about z: the angle in radians.
  double read_rotation(const pugi::xml_node& r) const {
    const double u = ctx_.angle_unit(r, "unit");
    if (ctx_.attr_or(r, "x", 0) != 0 || ctx_.attr_or(r, "y", 0) != 0) {
      ctx_.fail(r, "rotation about x or y is not supported (only about z)");
    }
    return ctx_.attr_or(r, "z", 0) * u;
  }

  // Composition of a reference inside a material: a file element, a file
  // material, an element symbol or a built-in (NIST) material.
  Composition composition_of(const pugi::xml_node& at, const std::string& ref) const {
    if (auto it = elements_.find(ref); it != elements_.end()) return {{it->second.first, 1.0}};
    if (auto it = materials_.find(ref); it != materials_.end()) {
      if (!it->second.builtin_ref) return it->second.fractions;
    }
    const MaterialLibrary& lib = builtin_materials();
    if (lib.contains(ref)) {
      Composition c;
      for (const auto& comp : lib.find(ref).components)
        c[element_by_z(comp.z).symbol] += comp.mass_fraction;
      return c;
    }
    try {
      return {{element_by_symbol(ref).symbol, 1.0}};
    } catch (const Error&) {
      ctx_.fail(at, fmt::format("unknown element or material '{}'", ref));
    }
  }
  double molar_mass_of(const pugi::xml_node& at, const std::string& ref) const {
    if (auto it = elements_.find(ref); it != elements_.end()) return it->second.second;
    try {
      return element_by_symbol(ref).a_g_per_mol;
    } catch (const Error&) {
      ctx_.fail(at, fmt::format("atom counts need an element, '{}' is not one", ref));
    }
  }
  double atomic_mass(const pugi::xml_node& atom) const {
    const std::string unit = atom.attribute("unit").as_string("g/mole");
    if (unit != "g/mole" && unit != "g/mol")
      ctx_.fail(atom, fmt::format("unsupported unit '{}'", unit));
    const double a = ctx_.attr(atom, "value");
    if (!(a > 0)) ctx_.fail(atom, "atomic mass must be > 0");
    return a;
  }

  void read_materials(const pugi::xml_node& sec) {
    for (const pugi::xml_node& m : sec.children()) {
      if (m.type() != pugi::node_element) continue;
      const std::string kind = m.name();
      const std::string name = m.attribute("name").as_string();
      if (name.empty()) ctx_.fail(m, "missing attribute 'name'");
      if (kind == "element") {
        if (!m.attribute("Z")) ctx_.fail(m, "elements made of isotopes are not supported (give Z)");
        const double zd = ctx_.attr(m, "Z");
        if (!(zd >= 1 && zd <= 200) || zd != std::round(zd)) {
          ctx_.fail(m, fmt::format("Z must be a positive integer, got {:g}", zd));
        }
        const int z = static_cast<int>(zd);
        const Element* e = nullptr;
        try {
          e = &element_by_z(z);
        } catch (const Error& err) {
          ctx_.fail(m, err.what());
        }
        const pugi::xml_node atom = m.child("atom");
        elements_[name] = {e->symbol, atom ? atomic_mass(atom) : e->a_g_per_mol};
      } else if (kind == "material") {
        MaterialDef def;
        def.name = name;
        const pugi::xml_node d = m.child("D");
        if (!d) {
          if (m.child("Dref")) ctx_.fail(m.child("Dref"), "unsupported construct");
          // No density: a reference to a built-in material (as Geant4 files
          // sometimes do for NIST ones), else an error.
          if (!builtin_materials().contains(name)) ctx_.fail(m, "missing <D> (density)");
          def.builtin_ref = true;
          materials_[name] = def;
          continue;
        }
        const std::string du = d.attribute("unit").as_string("g/cm3");
        double scale = 1;
        if (du == "g/cm3") scale = 1;
        else if (du == "mg/cm3") scale = 1e-3;
        else if (du == "kg/m3") scale = 1e-3;
        else ctx_.fail(d, fmt::format("unsupported density unit '{}'", du));
        def.density = ctx_.attr(d, "value") * scale;
        if (!(def.density > 0)) ctx_.fail(d, "density must be > 0");
        if (m.attribute("Z")) {
          const double zd = ctx_.attr(m, "Z");
          if (!(zd >= 1 && zd <= 200) || zd != std::round(zd)) {
            ctx_.fail(m, fmt::format("Z must be a positive integer, got {:g}", zd));
          }
          const int z = static_cast<int>(zd);
          try {
            def.fractions[element_by_z(z).symbol] = 1;
          } catch (const Error& err) {
            ctx_.fail(m, err.what());
          }
        }
        std::vector<std::pair<std::string, double>> atoms;  // (ref, count)
        for (const pugi::xml_node& c : m.children()) {
          if (c.type() != pugi::node_element) continue;
          const std::string ck = c.name();
          if (ck == "D" || ck == "atom" || ck == "MEE" || ck == "T" || ck == "P" || ck == "state")
            continue;
          const std::string ref = c.attribute("ref").as_string();
          if (ck == "fraction") {
            const double f = ctx_.attr(c, "n");
            if (!(f > 0)) ctx_.fail(c, "fraction must be > 0");
            for (const auto& [sym, g] : composition_of(c, ref)) def.fractions[sym] += f * g;
          } else if (ck == "composite") {
            const double nat = ctx_.attr(c, "n");
            if (!(nat > 0)) ctx_.fail(c, "atom count must be > 0");
            atoms.emplace_back(ref, nat);
            molar_mass_of(c, ref);  // checks it is an element
          } else {
            ctx_.fail(c, "unsupported material construct");
          }
        }
        if (!atoms.empty()) {
          if (!def.fractions.empty()) ctx_.fail(m, "mixes <fraction> and <composite>");
          double total = 0;
          for (const auto& [ref, nat] : atoms) total += nat * molar_mass_of(m, ref);
          for (const auto& [ref, nat] : atoms) {
            def.fractions[composition_of(m, ref).begin()->first] +=
                nat * molar_mass_of(m, ref) / total;
          }
        }
        if (def.fractions.empty()) ctx_.fail(m, "material without composition");
        materials_[name] = def;
      } else if (kind == "isotope") {
        ctx_.fail(m, "isotopes are not supported");
      } else {
        ctx_.fail(m, "unsupported material construct");
      }
    }
  }

  void read_solids(const pugi::xml_node& sec) {
    for (const pugi::xml_node& s : sec.children()) {
      if (s.type() != pugi::node_element) continue;
      const std::string kind = s.name();
      const std::string name = s.attribute("name").as_string();
      if (name.empty()) ctx_.fail(s, "missing attribute 'name'");
      Solid sol;
      const double lu = ctx_.length_unit(s);
      if (kind == "box") {
        sol.hx = 0.5 * ctx_.attr(s, "x") / lu;
        sol.hy = 0.5 * ctx_.attr(s, "y") / lu;
        sol.hz = 0.5 * ctx_.attr(s, "z") / lu;
        if (!(sol.hx > 0 && sol.hy > 0 && sol.hz > 0)) ctx_.fail(s, "box sizes must be > 0");
      } else if (kind == "trd") {
        // G4Trd: x1, y1 at -dz, x2, y2 at +dz (GDML gives full lengths).
        sol.is_box = false;
        const double x1 = 0.5 * ctx_.attr(s, "x1") / lu, x2 = 0.5 * ctx_.attr(s, "x2") / lu;
        const double y1 = 0.5 * ctx_.attr(s, "y1") / lu, y2 = 0.5 * ctx_.attr(s, "y2") / lu;
        sol.dz = 0.5 * ctx_.attr(s, "z") / lu;
        const Xy v[8] = {{-x1, -y1}, {x1, -y1}, {x1, y1}, {-x1, y1},
                         {-x2, -y2}, {x2, -y2}, {x2, y2}, {-x2, y2}};
        std::copy(v, v + 8, sol.v);
      } else if (kind == "trap") {
        // G4Trap vertex convention (G4Trap::MakePlanes): at -dz, y = -dy1 has
        // half width dx1 and y = +dy1 half width dx2; at +dz, dy2/dx3/dx4.
        sol.is_box = false;
        const double au = ctx_.angle_unit(s);
        sol.dz = 0.5 * ctx_.attr(s, "z") / lu;
        const double theta = ctx_.attr_or(s, "theta", 0) * au, phi = ctx_.attr_or(s, "phi", 0) * au;
        const double dy1 = 0.5 * ctx_.attr(s, "y1") / lu, dx1 = 0.5 * ctx_.attr(s, "x1") / lu;
        const double dx2 = 0.5 * ctx_.attr(s, "x2") / lu, a1 = ctx_.attr_or(s, "alpha1", 0) * au;
        const double dy2 = 0.5 * ctx_.attr(s, "y2") / lu, dx3 = 0.5 * ctx_.attr(s, "x3") / lu;
        const double dx4 = 0.5 * ctx_.attr(s, "x4") / lu, a2 = ctx_.attr_or(s, "alpha2", 0) * au;
        const double tx = sol.dz * std::tan(theta) * std::cos(phi);
        const double ty = sol.dz * std::tan(theta) * std::sin(phi);
        const double t1 = std::tan(a1), t2 = std::tan(a2);
        const Xy v[8] = {{-tx - dy1 * t1 - dx1, -ty - dy1}, {-tx - dy1 * t1 + dx1, -ty - dy1},
                         {-tx + dy1 * t1 + dx2, -ty + dy1}, {-tx + dy1 * t1 - dx2, -ty + dy1},
                         {tx - dy2 * t2 - dx3, ty - dy2},   {tx - dy2 * t2 + dx3, ty - dy2},
                         {tx + dy2 * t2 + dx4, ty + dy2},   {tx + dy2 * t2 - dx4, ty + dy2}};
        std::copy(v, v + 8, sol.v);
      } else if (kind == "arb8") {
        sol.is_box = false;
        sol.dz = ctx_.attr(s, "dz") / lu;
        for (int i = 0; i < 8; ++i) {
          sol.v[i] = {ctx_.attr(s, fmt::format("v{}x", i + 1).c_str()) / lu,
                      ctx_.attr(s, fmt::format("v{}y", i + 1).c_str()) / lu};
        }
      } else {
        ctx_.fail(s, "unsupported solid (fastmu reads box, trd, trap and arb8)");
      }
      if (!sol.is_box && !(sol.dz > 0)) ctx_.fail(s, "half length dz must be > 0");
      if (!solids_.emplace(name, sol).second)
        ctx_.fail(s, fmt::format("duplicate solid '{}'", name));
    }
  }

  pugi::xml_node volume_node(const pugi::xml_node& at, const std::string& name) const {
    for (const pugi::xml_node& v : structure_.children()) {
      if (v.type() != pugi::node_element) continue;
      if (std::string(v.name()) != "volume") ctx_.fail(v, "unsupported structure element");
      if (name == v.attribute("name").as_string()) return v;
    }
    ctx_.fail(at, fmt::format("unknown volume '{}'", name));
  }
  const Solid& solid_of(const pugi::xml_node& vol) const {
    const pugi::xml_node sr = vol.child("solidref");
    if (!sr) ctx_.fail(vol, "missing <solidref>");
    auto it = solids_.find(sr.attribute("ref").as_string());
    if (it == solids_.end())
      ctx_.fail(sr, fmt::format("unknown solid '{}'", sr.attribute("ref").as_string()));
    return it->second;
  }
  std::string material_of(const pugi::xml_node& vol) {
    const pugi::xml_node mr = vol.child("materialref");
    if (!mr) ctx_.fail(vol, "missing <materialref>");
    const std::string ref = mr.attribute("ref").as_string();
    if (materials_.count(ref) == 0 && !builtin_materials().contains(ref)) {
      ctx_.fail(mr, fmt::format("unknown material '{}'", ref));
    }
    used_materials_.insert(ref);
    return ref;
  }
  // Uniform field from <auxiliary auxtype="fastmu_field" auxvalue="Bx By Bz"/> (tesla).
  std::optional<std::array<double, 3>> field_of(const pugi::xml_node& vol) const {
    std::optional<std::array<double, 3>> field;
    for (const pugi::xml_node& aux : vol.children("auxiliary")) {
      if (std::string(aux.attribute("auxtype").as_string()) != "fastmu_field") continue;
      std::istringstream in(aux.attribute("auxvalue").as_string());
      std::array<double, 3> b{};
      std::string extra;
      if (!(in >> b[0] >> b[1] >> b[2]) || (in >> extra) || !std::isfinite(b[0] + b[1] + b[2])) {
        ctx_.fail(aux, "fastmu_field auxvalue must be 'Bx By Bz' in tesla");
      }
      field = b;
    }
    return field;
  }

  json build() {
    const pugi::xml_node wref = setup_.child("world");
    if (!wref) ctx_.fail(setup_, "missing <world ref=...>");
    const pugi::xml_node world = volume_node(wref, wref.attribute("ref").as_string());
    const Solid& ws = solid_of(world);
    if (!ws.is_box) ctx_.fail(world, "the world volume must be a box");
    json doc;
    doc["world"] = {{"min", {-ws.hx, -ws.hy, -ws.hz}},
                    {"max", {ws.hx, ws.hy, ws.hz}},
                    {"material", material_of(world)}};
    if (field_of(world)) ctx_.fail(world, "a field on the world volume is not supported");
    // fastmu's world when it is not centred (written by GdmlWriter), in mm.
    for (const pugi::xml_node& aux : world.children("auxiliary")) {
      if (std::string(aux.attribute("auxtype").as_string()) != "fastmu_world_bounds") continue;
      std::istringstream in(aux.attribute("auxvalue").as_string());
      std::array<double, 6> b{};
      std::string extra;
      for (double& x : b) {
        if (!(in >> x) || !std::isfinite(x))
          ctx_.fail(aux, "fastmu_world_bounds auxvalue must be 6 numbers (mm)");
        x /= 1000;
      }
      if (in >> extra) ctx_.fail(aux, "fastmu_world_bounds auxvalue must be 6 numbers (mm)");
      const double h[3] = {ws.hx, ws.hy, ws.hz};
      for (int a = 0; a < 3; ++a) {
        if (b[a] < -h[a] * (1 + 1e-12) || b[a + 3] > h[a] * (1 + 1e-12)) {
          ctx_.fail(aux, "fastmu_world_bounds must lie inside the world box");
        }
      }
      doc["world"]["min"] = {b[0], b[1], b[2]};
      doc["world"]["max"] = {b[3], b[4], b[5]};
    }
    json volumes = json::array();
    std::set<std::string> names;
    for (const pugi::xml_node& c : world.children()) {
      if (c.type() != pugi::node_element) continue;
      const std::string ck = c.name();
      if (ck == "materialref" || ck == "solidref" || ck == "auxiliary") continue;
      if (ck != "physvol") ctx_.fail(c, "unsupported volume content");
      json v = placement(c);
      // GDML places one logical volume many times (unnamed physvols, or
      // repeated physvol names); fastmu volume names must be unique, so a
      // repeat becomes "<name>_1", "<name>_2", ... in document order.
      const std::string base = v["name"].get<std::string>();
      std::string name = base;
      for (int k = 1; !names.insert(name).second; ++k) name = fmt::format("{}_{}", base, k);
      v["name"] = name;
      volumes.push_back(std::move(v));
    }
    doc["volumes"] = volumes;
    json mats = json::object();
    for (const std::string& name : used_materials_) {
      auto it = materials_.find(name);
      if (it == materials_.end() || it->second.builtin_ref) continue;
      mats[name] = {{"density", it->second.density}, {"composition", it->second.fractions}};
    }
    if (!mats.empty()) doc["materials"] = mats;
    return doc;
  }

  json placement(const pugi::xml_node& pv) {
    std::array<double, 3> pos{};
    double angle = 0;
    pugi::xml_node vref;
    for (const pugi::xml_node& c : pv.children()) {
      if (c.type() != pugi::node_element) continue;
      const std::string ck = c.name();
      if (ck == "volumeref") {
        vref = c;
      } else if (ck == "position") {
        pos = read_position(c);
      } else if (ck == "positionref") {
        auto it = positions_.find(c.attribute("ref").as_string());
        if (it == positions_.end())
          ctx_.fail(c, fmt::format("unknown position '{}'", c.attribute("ref").as_string()));
        pos = it->second;
      } else if (ck == "rotation") {
        angle = read_rotation(c);
      } else if (ck == "rotationref") {
        auto it = rotations_.find(c.attribute("ref").as_string());
        if (it == rotations_.end())
          ctx_.fail(c, fmt::format("unknown rotation '{}'", c.attribute("ref").as_string()));
        angle = it->second;
      } else {
        ctx_.fail(c, "unsupported physvol content (e.g. scale, file, copy number)");
      }
    }
    if (pv.attribute("copynumber")) {
    }  // harmless: fastmu has no copy numbers
    if (!vref) ctx_.fail(pv, "missing <volumeref>");
    const pugi::xml_node vol = volume_node(vref, vref.attribute("ref").as_string());
    for (const pugi::xml_node& c : vol.children()) {
      if (c.type() != pugi::node_element) continue;
      const std::string ck = c.name();
      if (ck == "physvol")
        ctx_.fail(c, "nested placements are not supported (place every volume in the world)");
      if (ck != "materialref" && ck != "solidref" && ck != "auxiliary")
        ctx_.fail(c, "unsupported volume content");
    }
    const Solid& s = solid_of(vol);
    json v;
    const std::string pv_name = pv.attribute("name").as_string();
    v["name"] = pv_name.empty() ? vol.attribute("name").as_string() : pv_name;
    v["material"] = material_of(vol);
    if (const auto f = field_of(vol)) v["field"] = *f;
    // The frame rotation of Geant4's physvol turns the solid by -angle.
    const double c = std::cos(-angle), sn = std::sin(-angle);
    if (s.is_box && angle == 0) {
      v["shape"] = "box";
      v["min"] = {pos[0] - s.hx, pos[1] - s.hy, pos[2] - s.hz};
      v["max"] = {pos[0] + s.hx, pos[1] + s.hy, pos[2] + s.hz};
      return v;
    }
    Xy local[8];
    double dz = s.dz;
    if (s.is_box) {
      // A box is exactly an ARB8.
      const Xy b[4] = {{-s.hx, -s.hy}, {s.hx, -s.hy}, {s.hx, s.hy}, {-s.hx, s.hy}};
      for (int i = 0; i < 8; ++i) local[i] = b[i % 4];
      dz = s.hz;
    } else {
      std::copy(s.v, s.v + 8, local);
    }
    json verts = json::array();
    for (const Xy& p : local) {
      const double x = angle == 0 ? p.x : c * p.x - sn * p.y;
      const double y = angle == 0 ? p.y : sn * p.x + c * p.y;
      verts.push_back({x + pos[0], y + pos[1]});
    }
    v["shape"] = "arb8";
    v["z_center"] = pos[2];
    v["dz"] = dz;
    v["vertices"] = verts;
    return v;
  }

  GdmlContext ctx_;
  pugi::xml_document doc_;
  pugi::xml_node structure_, setup_;
  std::map<std::string, std::array<double, 3>> positions_;
  std::map<std::string, double> rotations_;
  std::map<std::string, std::pair<std::string, double>> elements_;  // name -> (symbol, A)
  std::map<std::string, MaterialDef> materials_;
  std::map<std::string, Solid> solids_;
  std::set<std::string> used_materials_;
};

}  // namespace

json gdml_to_geometry_json(std::string_view text, const std::string& source) {
  return GdmlTranslator(text, source).translate();
}

GeometryParams geometry_from_gdml_file(const std::filesystem::path& file,
                                       MaterialLibrary& materials) {
  const std::string source = file.string();
  std::ifstream in(file, std::ios::binary);
  if (!in) throw Error(fmt::format("{}: cannot open geometry file", source));
  io::note_input(file);
  std::ostringstream buf;
  buf << in.rdbuf();
  json doc = gdml_to_geometry_json(buf.str(), source);
  std::filesystem::path sidecar = file;
  sidecar += ".json";
  if (std::filesystem::exists(sidecar)) {
    std::ifstream sin(sidecar);
    io::note_input(sidecar);
    json extra;
    try {
      extra = json::parse(sin);
    } catch (const json::parse_error& e) {
      std::string what = e.what();
      std::replace(what.begin(), what.end(), '\n', ' ');
      throw Error(fmt::format("{}: invalid JSON: {}", sidecar.string(), what));
    }
    if (!extra.is_object())
      throw Error(fmt::format("{}: expected a JSON object", sidecar.string()));
    for (const auto& [k, v] : extra.items()) {
      if (k != "sensitive_planes" && k != "field_map" && k.rfind('_', 0) != 0 && k != "comment") {
        throw Error(fmt::format("{}: unknown key '{}' (expected: sensitive_planes, field_map)",
                                sidecar.string(), k));
      }
      doc[k] = v;
    }
  }
  return GeometryParams::from_json(doc, source, materials, file.parent_path());
}

GeometryParams load_geometry_file(const std::filesystem::path& file, MaterialLibrary& materials) {
  std::string ext = file.extension().string();
  for (char& ch : ext) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  if (ext == ".gdml") return geometry_from_gdml_file(file, materials);
  return GeometryParams::from_json_file(file, materials);
}

}  // namespace fastmu
