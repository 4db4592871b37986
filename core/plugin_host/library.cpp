// SPDX-License-Identifier: Apache-2.0
#include "core/plugin_host/library.hpp"

#include <boost/dll/import.hpp>          // import / import_symbol
#include <boost/dll/shared_library.hpp>  // shared_library, load_mode
#include <boost/version.hpp>             // BOOST_VERSION

#include <fmt/format.h>

#include <mutex>
#include <vector>

#include "core/support/user_error.hpp"

namespace ndsearch {
namespace {

// Boost 1.76 renamed boost::dll::import to import_symbol (Debian 12 has 1.74).
template <class Signature>
auto import_entry(const boost::dll::shared_library& library, const char* name) {
#if BOOST_VERSION >= 107600
  return boost::dll::import_symbol<Signature>(library, name);
#else
  return boost::dll::import <Signature>(library, name);
#endif
}

// Every library opened, kept until exit on purpose (see library.hpp).
std::vector<boost::dll::shared_library>& libraries_kept_open() {
  static auto* kept = new std::vector<boost::dll::shared_library>();
  return *kept;
}
std::mutex libraries_mutex;

}  // namespace

const nds_module* open_plugin_library(const std::filesystem::path& path) {
  boost::dll::shared_library library;
  try {
    library.load(path, boost::dll::load_mode::rtld_now | boost::dll::load_mode::rtld_local);
  } catch (const std::exception& e) {
    throw UserError("E-PLUGIN-LOAD",
                    fmt::format("{}: cannot be loaded as a shared library ({}); check that it "
                                "is a plugin built for this platform and that its dependencies "
                                "are installed",
                                path.string(), e.what()));
  }
  if (!library.has(NDS_ENTRY_SYMBOL)) {
    throw UserError("E-PLUGIN-NO-ENTRY",
                    fmt::format("{}: not an ndsearch plugin: it does not export {}; build it "
                                "with nds_add_plugin() or define {} with NDS_EXPORT",
                                path.string(), NDS_ENTRY_SYMBOL, NDS_ENTRY_SYMBOL));
  }
  auto entry = import_entry<const nds_module*()>(library, NDS_ENTRY_SYMBOL);
  const nds_module* module = entry();
  {
    std::lock_guard lock(libraries_mutex);
    libraries_kept_open().push_back(std::move(library));
  }
  if (module == nullptr) {
    throw UserError("E-PLUGIN-ENTRY",
                    fmt::format("{}: {}() returned NULL; it must return the plugin's static "
                                "module table",
                                path.string(), NDS_ENTRY_SYMBOL));
  }
  return module;
}

}  // namespace ndsearch
