// A minimal 3-vector usable on host and device.
#pragma once

#include <array>
#include <cmath>

#include "fastmu/core/Macros.hh"

namespace fastmu {

template <class T>
struct Vec3T {
  T x{}, y{}, z{};

  FASTMU_HD friend Vec3T operator+(Vec3T a, Vec3T b) { return {a.x + b.x, a.y + b.y, a.z + b.z}; }
  FASTMU_HD friend Vec3T operator-(Vec3T a, Vec3T b) { return {a.x - b.x, a.y - b.y, a.z - b.z}; }
  FASTMU_HD friend Vec3T operator*(T s, Vec3T a) { return {s * a.x, s * a.y, s * a.z}; }
  FASTMU_HD friend Vec3T operator*(Vec3T a, T s) { return {s * a.x, s * a.y, s * a.z}; }
  FASTMU_HD Vec3T& operator+=(Vec3T b) {
    x += b.x;
    y += b.y;
    z += b.z;
    return *this;
  }
};

template <class T>
FASTMU_HD inline T dot(Vec3T<T> a, Vec3T<T> b) {
  return a.x * b.x + a.y * b.y + a.z * b.z;
}
template <class T>
FASTMU_HD inline Vec3T<T> cross(Vec3T<T> a, Vec3T<T> b) {
  return {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}
template <class T>
FASTMU_HD inline T norm(Vec3T<T> a) {
  return std::sqrt(dot(a, a));
}

using Vec3 = Vec3T<double>;
using Vec3f = Vec3T<float>;

// A double triple (a parameter object's coordinates) as the float vector
// the step's views hold. Host code.
inline Vec3f to_vec3f(const std::array<double, 3>& a) {
  return {static_cast<float>(a[0]), static_cast<float>(a[1]), static_cast<float>(a[2])};
}

// Rotates `local`, expressed in a frame whose z axis is the unit vector `u`,
// into the global frame (the Geant4 RotateUz construction: no trigonometry,
// exact for u along +-z).
template <class T>
FASTMU_HD inline Vec3T<T> rotate_from_z(Vec3T<T> local, Vec3T<T> u) {
  const T perp2 = u.x * u.x + u.y * u.y;
  if (perp2 <= T(1e-20)) {
    return u.z >= T(0) ? local : Vec3T<T>{-local.x, local.y, -local.z};
  }
  const T perp = std::sqrt(perp2);
  const T inv = T(1) / perp;
  return {(u.x * u.z * local.x - u.y * local.y) * inv + u.x * local.z,
          (u.y * u.z * local.x + u.x * local.y) * inv + u.y * local.z,
          -perp * local.x + u.z * local.z};
}

}  // namespace fastmu
