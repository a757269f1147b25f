// The control for upward_include.cpp: the same compile, against the same
// include root, of headers of the fusion layer and the layer below it.
#include "fusion/graph.hpp"
#include "vm/partition.hpp"

int main() {
  return 0;
}
