// SPDX-License-Identifier: Apache-2.0
#include "core/strategy/stage_rescale.hpp"

#include <stdexcept>

namespace ndsearch {

namespace {

// Python's // (rounds towards minus infinity), the reference's division: a
// negative offset splits with its remainder still going to the first parts.
int64_t floor_div(int64_t value, int64_t by) {
  const int64_t q = value / by;
  return (value % by != 0 && (value < 0) != (by < 0)) ? q - 1 : q;
}

// "In the middle" (§8.3) read as the reference's balancing adapter does it:
// one zero at a time before index len / 2 of the list as it grows, so the
// zeros gather at the centre ([a, b, c] + 1: [a, 0, b, c]; [a, b, c, d] + 2:
// [a, b, 0, 0, c, d]). The list is the tail of `v` from `begin`.
void insert_zeros_in_middle(std::vector<int64_t>& v, size_t begin, size_t zeros) {
  for (size_t k = 0; k < zeros; ++k)
    v.insert(v.begin() + static_cast<std::ptrdiff_t>(begin + (v.size() - begin) / 2), 0);
}

// The tail of `v` from `begin` (one per-stage list) rescaled to new_pp values.
void rescale_tail(std::vector<int64_t>& v, size_t begin, uint32_t new_pp) {
  const size_t p = v.size() - begin, target = new_pp;
  if (target > p) {
    // Pad to the first length that divides new_pp: it exists, new_pp itself
    // at the latest. The reference then splits each value into new_pp // p
    // parts (the unpadded length), which gives another length than new_pp
    // where that differs from new_pp / padded (3 -> 16 gives 20): we split
    // into new_pp / padded parts, the same wherever the reference's result
    // has new_pp values (3 -> 4, 3 -> 8, 8 -> 16, 5 -> 8, ...).
    size_t padded = p;
    while (target % padded != 0) ++padded;
    insert_zeros_in_middle(v, begin, padded - p);
    const auto parts = static_cast<int64_t>(target / padded);
    v.resize(begin + target);
    // From the back: value i's parts land at i·parts and after, never on a
    // value still to be read (those sit before i).
    for (size_t i = padded; i-- > 0;) {
      const int64_t value = v[begin + i];
      const int64_t base = floor_div(value, parts), remainder = value - base * parts;
      for (int64_t j = 0; j < parts; ++j)
        v[begin + i * static_cast<size_t>(parts) + static_cast<size_t>(j)] =
            base + (j < remainder ? 1 : 0);
    }
  } else if (target < p) {
    // §8.3 says "insert old % new zeros" and the reference then sums groups
    // of old // new, which drops the values past new·(old // new) where new
    // does not divide old (4 -> 3: the last two stages' values, and their
    // layers, are lost). We insert zeros up to the next multiple of new_pp
    // and sum groups of that multiple / new_pp: the reference's result where
    // new_pp divides p (8 -> 4, 16 -> 8), and the sum kept everywhere.
    const size_t padded = (p + target - 1) / target * target;
    insert_zeros_in_middle(v, begin, padded - p);
    const size_t group = padded / target;
    // In place from the front: group i is read from i·group on, after every
    // index already written (those before i).
    for (size_t i = 0; i < target; ++i) {
      int64_t sum = 0;
      for (size_t j = 0; j < group; ++j) sum += v[begin + i * group + j];
      v[begin + i] = sum;
    }
    v.resize(begin + target);
  }
}

void require_shape(size_t values, uint32_t pp, uint32_t vpp, uint32_t new_pp, uint32_t new_vpp) {
  if (pp == 0 || vpp == 0 || new_pp == 0 || new_vpp == 0 || values != static_cast<size_t>(pp) * vpp)
    throw std::invalid_argument(
        "stage rescaling: a table of vpp·pp values and pp, vpp, new pp, new vpp >= 1");
}

}  // namespace

void rescale_stages_into(std::span<const int64_t> stages, uint32_t new_pp,
                         std::vector<int64_t>& out) {
  require_shape(stages.size(), static_cast<uint32_t>(stages.size()), 1, new_pp, 1);
  out.assign(stages.begin(), stages.end());
  rescale_tail(out, 0, new_pp);
}

std::vector<int64_t> rescale_stages(std::span<const int64_t> stages, uint32_t new_pp) {
  std::vector<int64_t> out;
  rescale_stages_into(stages, new_pp, out);
  return out;
}

void rescale_chunk_table_into(std::span<const int64_t> table, uint32_t pp, uint32_t vpp,
                              uint32_t new_pp, uint32_t new_vpp, std::vector<int64_t>& out,
                              std::vector<int64_t>& scratch) {
  require_shape(table.size(), pp, vpp, new_pp, new_vpp);
  // First the rows (chunks), each still pp values wide, into `scratch`.
  scratch.assign(table.begin(), table.end());
  uint32_t rows = vpp;
  if (new_vpp > rows) {
    if (rows == 1) {
      // One chunk to two: the last stage's value goes to the second chunk,
      // which holds the model's last layers (virtual stage 2·pp - 1).
      scratch.resize(2 * static_cast<size_t>(pp), 0);
      scratch[2 * static_cast<size_t>(pp) - 1] = scratch[pp - 1];
      scratch[pp - 1] = 0;
      rows = 2;
    }
    // The rest as rows of zeros, all before the middle row of those there
    // were (row rows / 2), as the reference inserts them.
    scratch.insert(scratch.begin() + static_cast<std::ptrdiff_t>(rows / 2) * pp,
                   static_cast<size_t>(new_vpp - rows) * pp, 0);
  } else if (new_vpp < rows) {
    // The last row into the one before it, until new_vpp rows remain: the
    // rows from new_vpp - 1 on summed into row new_vpp - 1.
    int64_t* into = &scratch[static_cast<size_t>(new_vpp - 1) * pp];
    for (size_t r = new_vpp; r < rows; ++r)
      for (size_t s = 0; s < pp; ++s) into[s] += scratch[r * pp + s];
    scratch.resize(static_cast<size_t>(new_vpp) * pp);
  }
  // Then every row to new_pp stages, appended to `out` one after another.
  out.clear();
  for (size_t r = 0; r < new_vpp; ++r) {
    out.insert(out.end(), scratch.begin() + static_cast<std::ptrdiff_t>(r * pp),
               scratch.begin() + static_cast<std::ptrdiff_t>((r + 1) * pp));
    rescale_tail(out, r * new_pp, new_pp);
  }
}

std::vector<int64_t> rescale_chunk_table(std::span<const int64_t> table, uint32_t pp, uint32_t vpp,
                                         uint32_t new_pp, uint32_t new_vpp) {
  std::vector<int64_t> out, scratch;
  rescale_chunk_table_into(table, pp, vpp, new_pp, new_vpp, out, scratch);
  return out;
}

}  // namespace ndsearch
