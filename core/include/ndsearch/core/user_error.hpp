// SPDX-License-Identifier: Apache-2.0
// user_error.hpp: an error the user can fix, with a stable id (DESIGN §8.8):
// what every function of the public API throws for bad input.
#pragma once

#include <stdexcept>  // std::runtime_error
#include <string>

namespace ndsearch {

// Exit codes of every verb (DESIGN §8.8).
inline constexpr int kExitOk = 0;
inline constexpr int kExitUsage = 2;  // usage or input error
inline constexpr int kExitNoFit = 3;  // `search` found nothing that fits

// The message names what was wrong, where (file, line, field or flag), the bad
// value and the fix; `id` is stable across releases (e.g. "E-PLUGIN-ABI-MAJOR").
class UserError : public std::runtime_error {
 public:
  UserError(std::string id, const std::string& message, int exit_code = kExitUsage)
      : std::runtime_error(message), id_(std::move(id)), exit_code_(exit_code) {}
  const std::string& id() const noexcept { return id_; }
  int exit_code() const noexcept { return exit_code_; }

 private:
  std::string id_;
  int exit_code_;
};

}  // namespace ndsearch
