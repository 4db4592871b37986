// SPDX-License-Identifier: Apache-2.0
// error_text.hpp: what a call throws, as "[ID] message", for tests that pin
// an error's id and text together.
#pragma once

#include <catch2/catch.hpp>

#include <functional>
#include <string>

#include "core/support/user_error.hpp"

namespace ndsearch::test {

// "[E-ID] message" of the UserError `call` throws; a test failure if none.
inline std::string error_text(const std::function<void()>& call) {
  try {
    call();
  } catch (const UserError& e) {
    return "[" + e.id() + "] " + e.what();
  }
  FAIL("no UserError");
  return {};
}

}  // namespace ndsearch::test
