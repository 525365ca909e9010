// fastmu histogram tables: the one header to include.
//
// API summary (units: metres, GeV/c; layout and CLI in docs/stepping-and-tables.md)
//
//   Loading and using a table (transport):
//     TableParams t = load_table("fe.h5", step_m);     // validates; one-line fastmu::Error
//     TableView v = t.host_view();                      // POD, host arrays
//     TableView d = t.make_view(copy);                  // copy(const T* host, size_t n) -> const
//     T*
//                                                       //   (cudaMemcpy for the GPU);
//                                                       t.device_bytes()
//     int b = choose_interpolated_bin(v, p, u);         // TableSampling.hh, FASTMU_HD
//     SampledLoss s = sample_bin(v, b, bits32, ux, uy); // s.loss_frac = -dPz/P, s.kick_frac =
//     dPt/P t.metadata(): material, step_m, binning, charge, generator, source_sha256, seed,
//     created_utc... t.data(): edges, centres, axes, counts, cells, samples_per_bin, mean/std loss,
//     mean kick
//
//   The cache (tables by material and step, built with the engine when missing):
//     TableCache cache;             // folder: $FASTMU_CACHE | $XDG_CACHE_HOME/fastmu |
//     ~/.cache/fastmu auto fe = cache.get(material, step_m);  // std::shared_ptr<const
//     TableParams>; thread-safe cache.build_options();        // defaults: 163 log bins to 100
//     TeV/c, 100x100 cells,
//                                   //   $FASTMU_CACHE_SAMPLES or 1e6 per bin at most
//
//   Building:
//     TableParams t = build_table_with_engine(material, TableBuildOptions{...}, progress);
//     FileSampleSource src("samples.f32");  build_table(meta, options, src);
//     write_table_file("fe.h5", t);                     // atomic
#pragma once

#include "fastmu/tables/EngineSampleSource.hh"
#include "fastmu/tables/FileSampleSource.hh"
#include "fastmu/tables/MomentumBinning.hh"
#include "fastmu/tables/TableBuilder.hh"
#include "fastmu/tables/TableCache.hh"
#include "fastmu/tables/TableFile.hh"
#include "fastmu/tables/TableParams.hh"
#include "fastmu/tables/TableSampling.hh"
#include "fastmu/tables/TableView.hh"
