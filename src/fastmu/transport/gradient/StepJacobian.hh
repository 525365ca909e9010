// One step's linearisation, for the adjoint (MuonAdjoint.hh): the tangent
// machinery of FieldTangents.hh run over eleven unit columns instead of the
// parameters, so that a step's derivative is that of forward mode by
// construction (the same hooks, decisions and softening).
//
// A step maps the state's tangent (dr, dp) linearly, plus sources from the
// parameters: dB/dtheta of the field it moves in (entering RK4), and at a
// face it ends on, the face's outward velocity v and the gap opened to the
// volume entered (entering the path length). Per step these sources span at
// most five directions, whatever the number of parameters:
//  - columns 0-5: the step's Jacobian J, the image of unit dr and dp;
//  - columns 6-8: the response to a unit dB along x, y, z in the move's
//    volume (no incoming tangent);
//  - column 9: to a unit outward velocity of the face crossed;
//  - column 10: to a unit gap path (times n . u) at that face.
// Parameter k's source of the step is then dB_k . (columns 6-8) +
// v_k (column 9) + gap_k (column 10), its coefficients evaluated from the
// sparse rows of FieldParameterView at the face and point the step recorded.
#pragma once

#include <cstdint>

#include "fastmu/transport/gradient/FieldTangents.hh"

namespace fastmu {

inline constexpr std::int32_t kStepColumns = 11;
inline constexpr std::int32_t kFieldColumn = 6;  // first of the three dB columns
inline constexpr std::int32_t kFaceColumn = 9;
inline constexpr std::int32_t kGapColumn = 10;

// The unit columns of one step and where its sources were: the move's
// volume (if in a field) and the face crossed (volume, face, point; and the
// touching volume whose face moves apart, the gap's).
struct StepColumns {
  static constexpr std::int32_t kMax = kStepColumns;
  static constexpr bool kStartsLive = true;

  std::int32_t field_volume = -1;
  std::int32_t face_volume = -1, face = -1;
  std::int32_t gap_volume = -1, gap_face = -1;
  Vec3f face_point;
  bool in_field = false;

  FASTMU_HD std::int32_t count(const FieldParameterView&) const { return kStepColumns; }
  FASTMU_HD void seed(Vec3f* dr, Vec3f* dp) {
    dr[0].x = dr[1].y = dr[2].z = 1.0f;
    dp[3].x = dp[4].y = dp[5].z = 1.0f;
  }
  FASTMU_HD bool begin_move(const FieldParameterView&, std::int32_t volume, bool field) {
    in_field = field;
    field_volume = field ? volume : -1;
    return field;
  }
  FASTMU_HD Vec3f field_source(std::int32_t k) const {
    if (!in_field) return Vec3f{};
    return {k == kFieldColumn ? 1.0f : 0.0f, k == kFieldColumn + 1 ? 1.0f : 0.0f,
            k == kFieldColumn + 2 ? 1.0f : 0.0f};
  }
  // ParameterColumns::face_sources' decisions (the same face, normal and
  // gap test), unit sources in columns 9 and 10.
  template <class Env>
  FASTMU_HD FASTMU_FORCEINLINE bool face_sources(const FieldParameterView& p, const Env& env,
                                                 std::int32_t volume, std::int32_t entered,
                                                 Vec3f pt, Vec3f& n, float* vel, float* gap) {
    for (std::int32_t k = 0; k < kStepColumns; ++k) vel[k] = gap[k] = 0.0f;
    int f;
    if (p.face_of(volume, pt, n, f)) {
      face_volume = volume, face = f;
    } else if (!env.boundary_normal(volume, pt, n)) {
      return false;
    }
    face_point = pt;
    Vec3f nb;
    int fb;
    if (entered >= 0 && entered != volume && p.face_of(entered, pt, nb, fb) &&
        dot(nb, n) < -0.999f) {
      gap_volume = entered, gap_face = fb;
    }
    vel[kFaceColumn] = 1.0f;
    gap[kGapColumn] = 1.0f;
    return true;
  }
};

using StepJacobian = PathTangents<StepColumns>;

// The outward velocities of face `face` of volume v at p, per parameter v
// depends on, each passed to add(k, velocity).
template <class Add>
FASTMU_HD FASTMU_FORCEINLINE void for_face_velocities(const FieldParameterView& p, std::int32_t v,
                                                      int face, Vec3f pt, Add&& add) {
  const Arb8Shape& s = p.arb8s[p.volumes[v].arb8];
  p.for_each_entry(v, [&](std::int32_t k, Vec3f, const Arb8Tangent& d) {
    add(k, arb8_face_velocity(s, face, pt, d));
  });
}

// The step's sources weighted by the adjoint: `mu` holds lambda . column c
// for c = 6..10 (at mu[c - 6]); adds sum_c mu_c (source of parameter k in
// column c) to g[k] for every parameter the step's volumes depend on.
FASTMU_HD FASTMU_FORCEINLINE void add_step_sources(const FieldParameterView& p,
                                                   const StepColumns& c, const float* mu,
                                                   double* g) {
  if (c.field_volume >= 0) {
    p.for_each_entry(c.field_volume, [&](std::int32_t k, Vec3f d, const Arb8Tangent&) {
      g[k] += static_cast<double>(mu[0] * d.x + mu[1] * d.y + mu[2] * d.z);
    });
  }
  // The gap's source is -(v_A + v_B): A's velocity enters both columns.
  const bool gap = c.gap_volume >= 0;
  const float face_weight =
      mu[kFaceColumn - kFieldColumn] - (gap ? mu[kGapColumn - kFieldColumn] : 0.0f);
  if (c.face_volume >= 0) {
    for_face_velocities(p, c.face_volume, c.face, c.face_point, [&](std::int32_t k, float v) {
      g[k] += static_cast<double>(face_weight * v);
    });
  }
  if (gap) {
    const float w = -mu[kGapColumn - kFieldColumn];
    for_face_velocities(p, c.gap_volume, c.gap_face, c.face_point,
                        [&](std::int32_t k, float v) { g[k] += static_cast<double>(w * v); });
  }
}

}  // namespace fastmu
