// SPDX-License-Identifier: Apache-2.0
// logging.hpp: the core's own spelling of the public logging setup.
#pragma once

#include <ndsearch/core/logging.hpp>
