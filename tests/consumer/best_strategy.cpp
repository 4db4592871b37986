// SPDX-License-Identifier: Apache-2.0
// best_strategy.cpp: a program of a user's own that asks the installed
// ndsearch for the best strategy of a config on 64 H100 SXM, and prints its
// step time and strategy as JSON: best_strategy CONFIG.
#include <ndsearch/core/planner.hpp>

#include <iostream>

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: best_strategy CONFIG\n";
    return 2;
  }
  try {
    ndsearch::PluginSettings plugins;
    plugins.shipped_dir = NDSEARCH_PLUGIN_DIR;  // from find_package(ndsearch)
    plugins.use_environment = false;
    const ndsearch::Planner planner(plugins);
    ndsearch::SearchSettings search;
    search.model.config = argv[1];
    search.model.global_batch = 64;
    search.model.seq_len = 8192;
    search.device = "nvidia-h100-sxm";
    search.devices = 64;
    search.top = 1;
    const nlohmann::json answer = planner.search(search).to_json();
    const nlohmann::json& best = answer.at("ranking").at(0);
    std::cout << nlohmann::json{{"step_s", best.at("time").at("step_s")},
                                {"strategy", best.at("strategy")}}
                     .dump()
              << "\n";
    return 0;
  } catch (const ndsearch::UserError& e) {
    std::cerr << "best_strategy: error [" << e.id() << "]: " << e.what() << "\n";
    return e.exit_code();
  }
}
