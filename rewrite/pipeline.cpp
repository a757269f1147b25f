#include "rewrite/pipeline.hpp"

#include <algorithm>
#include <string>

#include "vm/error.hpp"

namespace arrvm {

const std::vector<PassInfo>& pass_registry() {
  static const std::vector<PassInfo> registry = {
#define ARRVM_PASS(id, name, stage, summary) {name, stage, &run_##id, summary},
#define ARRVM_BACKEND_PASS(id, name, summary) {name, PassStage::Backend, nullptr, summary},
#include "rewrite/passes.def"
#undef ARRVM_PASS
#undef ARRVM_BACKEND_PASS
  };
  return registry;
}

void check_pass_names(const Config& config) {
  const auto& registry = pass_registry();
  for (const std::string& name : config.pass_names()) {
    const bool known =
        std::any_of(registry.begin(), registry.end(), [&](const PassInfo& p) { return name == p.name; });
    if (known) continue;
    std::string list;
    for (const PassInfo& p : registry) list += std::string(list.empty() ? "" : ", ") + p.name;
    throw Error("configuration: ARRVM_PASSES='" + config.passes + "' names no pass '" + name +
                "' (the passes: " + list + ")");
  }
}

RewritePipeline::RewritePipeline(const Config& config, Profile* profile) : profile_(profile) {
  const auto& registry = pass_registry();
  if (registry.size() > static_cast<std::size_t>(Profile::kMaxPasses)) {
    throw InternalError("rewrite/passes.def has more passes than Profile::kMaxPasses");
  }
  check_pass_names(config);
  for (std::size_t i = 0; i < registry.size(); ++i) {
    profile_->pass_names[i] = registry[i].name;
    if (registry[i].run != nullptr && config.pass_on(registry[i].name)) {
      steps_.push_back({static_cast<int>(i), registry[i].stage, registry[i].run});
    }
  }
}

void RewritePipeline::run(PassStage stage, RewriteBatch& batch, RewriteContext& ctx) const {
  for (const Step& s : steps_) {
    if (s.stage == stage) profile_->pass_counts[s.index] += s.run(batch, ctx);
  }
}

}  // namespace arrvm
