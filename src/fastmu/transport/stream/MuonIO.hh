// Muon files: reading the transport input and writing its output
// (interfaces.md "Muon files" and "Transport output").
#pragma once

#include <filesystem>

#include "fastmu/transport/MuonBatch.hh"
#include "fastmu/transport/MuonRowCheck.hh"

namespace fastmu {

// Reads a whole muon file: px,py,pz,x,y,z,pdg[,weight] from CSV or HDF5
// (dataset "muons"); MuonReader reads it in chunks.
// A missing weight column means 1. Throws fastmu::Error naming the file, the
// line (CSV) or row (HDF5) and the column of the first bad value: a missing
// column, a non-finite number, or a pdg other than +-13.
MuonBatch read_muons(const std::filesystem::path& path, MuonRowLimits limits = {});

// Writes id,px,py,pz,x,y,z,pdg,weight,status[,plane] (CSV or HDF5 by extension),
// atomically, uncompressed (MuonWriter writes in chunks). Only status-0 rows unless `all`; the
// plane column is written when `with_plane` (geometries with several sensitive planes).
void write_transport_result(const std::filesystem::path& path, const TransportResult& result,
                            bool all, bool with_plane);

}  // namespace fastmu
