// Compiled by the layers_* tests against the fusion layer's include root
// (build/layers/fusion): the engine is above fusion, so this must not compile
// ("engine/runtime.hpp: No such file or directory"). See docs/architecture.md, "Layers".
#include "engine/runtime.hpp"
