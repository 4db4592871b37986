// SPDX-License-Identifier: Apache-2.0
// user_error.hpp: the core's own spelling of the public error type.
#pragma once

#include <ndsearch/core/user_error.hpp>
