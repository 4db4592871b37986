// SPDX-License-Identifier: Apache-2.0
// main.cpp: Catch2 v2's main for the whole test program.
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
