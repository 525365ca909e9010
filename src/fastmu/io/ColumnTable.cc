#include "fastmu/io/ColumnTable.hh"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string_view>
#include <unordered_set>

#include "fastmu/core/Error.hh"
#include "fastmu/io/AtomicOutput.hh"
#include "fastmu/io/Hdf5.hh"
#include "fastmu/io/InputFiles.hh"

namespace fastmu::io {
namespace {

std::string trim(std::string_view s) {
  std::size_t b = 0, e = s.size();
  while (b < e && (s[b] == ' ' || s[b] == '\t' || s[b] == '\r' || s[b] == '"')) ++b;
  while (e > b && (s[e - 1] == ' ' || s[e - 1] == '\t' || s[e - 1] == '\r' || s[e - 1] == '"')) --e;
  return std::string(s.substr(b, e - b));
}

std::vector<std::string> split_commas(const std::string& line) {
  std::vector<std::string> out;
  std::size_t start = 0;
  for (;;) {
    const std::size_t comma = line.find(',', start);
    out.push_back(trim(std::string_view(line).substr(
        start, comma == std::string::npos ? std::string::npos : comma - start)));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

bool parse_number(const std::string& s, double& value) {
  if (s.empty()) return false;
  const char* first = s.data();
  if (*first == '+') ++first;
  const auto [ptr, ec] = std::from_chars(first, s.data() + s.size(), value);
  if (ec == std::errc() && ptr == s.data() + s.size()) return true;
  // from_chars rejects "inf"/"nan" spellings some writers use; strtod takes them.
  char* end = nullptr;
  value = std::strtod(s.c_str(), &end);
  return end == s.c_str() + s.size();
}

}  // namespace

long first_duplicate_column(const std::vector<std::string>& names) {
  std::unordered_set<std::string_view> seen;
  seen.reserve(names.size());
  for (std::size_t c = 0; c < names.size(); ++c) {
    if (!seen.insert(names[c]).second) return static_cast<long>(c);
  }
  return -1;
}

namespace {

ColumnTable read_csv(const std::filesystem::path& path) {
  std::ifstream in(path);
  if (!in) throw Error(path.string() + ": cannot open file");
  note_input(path);
  ColumnTable table;
  std::string line;
  std::size_t line_no = 0;
  while (std::getline(in, line)) {
    ++line_no;
    if (!trim(line).empty() && line[0] != '#') break;
  }
  if (trim(line).empty() || line[0] == '#')
    throw Error(path.string() + ": file is empty (no header line)");
  table.columns = split_commas(line);
  for (std::size_t c = 0; c < table.columns.size(); ++c) {
    const auto& name = table.columns[c];
    double dummy;
    if (name.empty())
      throw Error(path.string() + ":" + std::to_string(line_no) + ": empty column name in header");
    if (parse_number(name, dummy)) {
      throw Error(path.string() + ":" + std::to_string(line_no) +
                  ": header line expected (column names), found a number '" + name + "'");
    }
  }
  if (const long d = first_duplicate_column(table.columns); d >= 0) {
    throw Error(path.string() + ":" + std::to_string(line_no) + ": duplicate column '" +
                table.columns[static_cast<std::size_t>(d)] + "'");
  }
  const std::size_t ncol = table.columns.size();
  while (std::getline(in, line)) {
    ++line_no;
    if (trim(line).empty() || line[0] == '#') continue;
    const auto fields = split_commas(line);
    if (fields.size() != ncol) {
      throw Error(path.string() + ":" + std::to_string(line_no) + ": expected " +
                  std::to_string(ncol) + " fields, found " + std::to_string(fields.size()));
    }
    for (std::size_t c = 0; c < ncol; ++c) {
      double v;
      if (!parse_number(fields[c], v)) {
        throw Error(path.string() + ":" + std::to_string(line_no) + ": column '" +
                    table.columns[c] + "': '" + fields[c] + "' is not a number");
      }
      table.values.push_back(v);
    }
  }
  return table;
}

ColumnTable read_hdf5(const std::filesystem::path& path, const std::string& dataset,
                      const std::vector<std::string>& default_columns) {
  const std::string source = path.string();
  h5::Handle file = h5::open_file(source);
  const auto dims = h5::dataset_shape(file.get(), dataset, source);
  if (dims.size() != 2) {
    throw Error(source + ": dataset '" + dataset + "' must be 2-D (rows, columns), has rank " +
                std::to_string(dims.size()));
  }
  ColumnTable table;
  h5::Handle ds(H5Dopen2(file.get(), dataset.c_str(), H5P_DEFAULT));
  if (h5::has_attribute(ds.get(), "columns")) {
    table.columns =
        split_commas(h5::read_string_list_attribute(ds.get(), "columns", source + ": " + dataset));
  } else {
    table.columns = default_columns;
    if (table.columns.size() > dims[1]) table.columns.resize(dims[1]);
  }
  if (table.columns.size() != dims[1]) {
    throw Error(source + ": dataset '" + dataset + "' has " + std::to_string(dims[1]) +
                " columns, expected " + std::to_string(table.columns.size()));
  }
  table.values = h5::read_dataset<double>(file.get(), dataset, source);
  return table;
}

ColumnTable read_raw_f32(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) throw Error(path.string() + ": cannot open file");
  note_input(path);
  const std::streamoff size = in.tellg();
  constexpr std::size_t ncol = 7;
  if (size % static_cast<std::streamoff>(ncol * sizeof(float)) != 0) {
    throw Error(path.string() + ": size " + std::to_string(size) +
                " bytes is not a whole number of 7-float rows (p0,px,py,pz,x,y,z)");
  }
  in.seekg(0);
  std::vector<float> raw(static_cast<std::size_t>(size) / sizeof(float));
  in.read(reinterpret_cast<char*>(raw.data()), size);
  if (!in) throw Error(path.string() + ": read error");
  ColumnTable table;
  table.columns = {"p0", "px", "py", "pz", "x", "y", "z"};
  table.values.assign(raw.begin(), raw.end());
  return table;
}

}  // namespace

int ColumnTable::find(const std::string& name) const {
  for (std::size_t i = 0; i < columns.size(); ++i) {
    if (columns[i] == name) return static_cast<int>(i);
  }
  return -1;
}

int ColumnTable::require(const std::string& name, const std::string& source) const {
  const int i = find(name);
  if (i < 0) throw Error(source + ": column '" + name + "' is missing");
  return i;
}

TableFormat format_from_path(const std::filesystem::path& path) {
  const std::string ext = path.extension().string();
  if (ext == ".h5" || ext == ".hdf5" || ext == ".hdf") return TableFormat::hdf5;
  if (ext == ".f32") return TableFormat::raw_f32;
  return TableFormat::csv;
}

ColumnTable read_table(const std::filesystem::path& path, const std::string& dataset,
                       const std::vector<std::string>& default_columns) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) throw Error(path.string() + ": file not found");
  if (std::filesystem::is_directory(path, ec))
    throw Error(path.string() + ": is a folder, not a file");
  switch (format_from_path(path)) {
    case TableFormat::hdf5:
      return read_hdf5(path, dataset, default_columns);
    case TableFormat::raw_f32:
      return read_raw_f32(path);
    case TableFormat::csv:
      break;
  }
  return read_csv(path);
}

void write_table(const std::filesystem::path& path, const ColumnTable& table,
                 const std::string& dataset, const h5::Compression& compression) {
  AtomicOutput out(path);
  const std::size_t ncol = table.columns.size();
  out.write([&](const std::filesystem::path& temp) {
    switch (format_from_path(path)) {
      case TableFormat::hdf5: {
        {
          h5::Handle file = h5::create_file(temp.string());
          const std::vector<hsize_t> shape = {table.rows(), ncol};
          h5::write_dataset<double>(file.get(), dataset, shape, table.values.data(), compression);
          h5::Handle ds(H5Dopen2(file.get(), dataset.c_str(), H5P_DEFAULT));
          std::string names;
          for (std::size_t c = 0; c < ncol; ++c) names += (c ? "," : "") + table.columns[c];
          h5::write_attribute(ds.get(), "columns", names);
          ds.reset();
          h5::close_written_file(file);
        }
        break;
      }
      case TableFormat::raw_f32: {
        std::ofstream f(temp, std::ios::binary);
        std::vector<float> raw(table.values.begin(), table.values.end());
        f.write(reinterpret_cast<const char*>(raw.data()), raw.size() * sizeof(float));
        close_checked(f, path);
        break;
      }
      case TableFormat::csv: {
        std::FILE* f = std::fopen(temp.c_str(), "w");
        if (!f) throw Error(path.string() + ": cannot open for writing");
        std::string header;
        for (std::size_t c = 0; c < ncol; ++c) header += (c ? "," : "") + table.columns[c];
        std::fprintf(f, "%s\n", header.c_str());
        char buf[64];
        std::string row;
        for (std::size_t r = 0; r < table.rows(); ++r) {
          row.clear();
          for (std::size_t c = 0; c < ncol; ++c) {
            const double v = table.values[r * ncol + c];
            // Integral values (ids, pdg, status) print without a decimal point.
            const bool integral = std::floor(v) == v && std::fabs(v) < 1e15;
            const int len = integral ? std::snprintf(buf, sizeof buf, "%.0f", v)
                                     : std::snprintf(buf, sizeof buf, "%.9g", v);
            if (c) row.push_back(',');
            row.append(buf, len);
          }
          row.push_back('\n');
          std::fputs(row.c_str(), f);
        }
        close_checked(f, path);
        break;
      }
    }
  });
}

}  // namespace fastmu::io
