// "Did you mean ...": the known names nearest to a mistyped one, for one-line
// errors about names (materials, options) instead of the whole list.
#pragma once

#include <algorithm>
#include <cctype>
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

namespace fastmu {

// Levenshtein distance, letters compared without case ("g4_fe" is G4_Fe).
inline std::size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const bool same = std::tolower(static_cast<unsigned char>(a[i - 1])) ==
                        std::tolower(static_cast<unsigned char>(b[j - 1]));
      const std::size_t next = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (same ? 0 : 1)});
      diagonal = row[j];
      row[j] = next;
    }
  }
  return row[b.size()];
}

// Up to `most` names of `known` nearest to `name`, within a third of its
// length (at least 2 edits), nearest first: "did you mean 'A' or 'B'?", or
// "" when none is that close.
inline std::string did_you_mean(const std::string& name, const std::vector<std::string>& known,
                                std::size_t most = 3) {
  const std::size_t limit = std::max<std::size_t>(2, name.size() / 3);
  std::vector<std::pair<std::size_t, std::string>> near;
  for (const auto& k : known) {
    const std::size_t d = edit_distance(name, k);
    if (d <= limit) near.emplace_back(d, k);
  }
  std::stable_sort(near.begin(), near.end(),
                   [](const auto& x, const auto& y) { return x.first < y.first; });
  if (near.size() > most) near.resize(most);
  if (near.empty()) return "";
  std::string out = "did you mean ";
  for (std::size_t i = 0; i < near.size(); ++i) {
    if (i > 0) out += i + 1 == near.size() ? " or " : ", ";
    out += "'" + near[i].second + "'";
  }
  return out + "?";
}

}  // namespace fastmu
