// SPDX-License-Identifier: Apache-2.0
// json_text.hpp: the core's own spelling of the public JSON writer.
#pragma once

#include <ndsearch/core/json_text.hpp>
