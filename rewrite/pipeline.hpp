// The rewrite pipeline: the passes of rewrite/passes.def that ARRVM_PASSES
// leaves on, run in the registry's order, stage by stage (rewrite/pass.hpp).
#pragma once

#include <string_view>
#include <vector>

#include "rewrite/pass.hpp"
#include "vm/config.hpp"
#include "vm/profile.hpp"

namespace arrvm {

struct PassInfo {
  const char* name;
  PassStage stage;
  PassFn run;  // null for a Backend pass
  const char* summary;
};

// Every pass, in the order they run.
const std::vector<PassInfo>& pass_registry();

// Throws Error naming ARRVM_PASSES and listing the passes if
// `config.passes` names one that is not in the registry.
void check_pass_names(const Config& config);

class RewritePipeline {
 public:
  // The passes `config.passes` leaves on. Throws Error naming ARRVM_PASSES
  // and listing the passes if it names one that is not in the registry.
  // The profile gets the passes' names; run() adds to their counts.
  RewritePipeline(const Config& config, Profile* profile);

  // Runs the stage's passes that are on, in order.
  void run(PassStage stage, RewriteBatch& batch, RewriteContext& ctx) const;

 private:
  struct Step {
    int index;  // in the registry, and the profile's counts
    PassStage stage;
    PassFn run;
  };
  std::vector<Step> steps_;
  Profile* profile_;
};

}  // namespace arrvm
