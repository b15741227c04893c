# The layering (src/CMakeLists.txt): each layer's library calls only itself and the layers it
# links. Included from tests/CMakeLists.txt.
get_property(graphprof_layers GLOBAL PROPERTY GRAPHPROF_LAYERS)
file(GENERATE OUTPUT ${PROJECT_BINARY_DIR}/layers/libraries.txt CONTENT "${graphprof_layers}")
add_test(NAME layers.symbols COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/layers/layer_symbols.sh
                                     ${PROJECT_BINARY_DIR}/layers/libraries.txt)
set_tests_properties(layers.symbols PROPERTIES LABELS cpu)
