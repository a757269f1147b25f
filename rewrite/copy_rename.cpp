// The copy-rename pass (rewrite/passes.def): CopyBack (rewrite/copy_back.hpp)
// on the batch, with the VM's bases and a fresh unfilled base for each rename.
#include "rewrite/copy_back.hpp"
#include "rewrite/pass.hpp"

namespace arrvm {

uint64_t run_copy_rename(RewriteBatch& batch, RewriteContext& ctx) {
  if (!ctx.can_rename || ctx.copy_back == nullptr) return 0;
  CopyBack::Env env;
  env.live = [&](BaseId b, DType* dtype, int64_t* nelem) {
    const BaseInfo* info = ctx.bases->find(b);
    if (info == nullptr || info->klass >= 0) return false;
    *dtype = info->dtype;
    *nelem = info->nelem;
    return true;
  };
  env.adopted = ctx.adopted;
  env.new_base = ctx.new_unfilled;
  const std::size_t before = ctx.copy_back->renamed();
  ctx.renames = ctx.copy_back->rewrite(batch.instrs, batch.origin, env);
  return ctx.copy_back->renamed() - before;
}

}  // namespace arrvm
