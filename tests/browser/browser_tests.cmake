# The HTML report in a real headless browser (Debian's chromium): no console errors, nothing
# fetched, charts and tables in the DOM, a screenshot that is not blank. Label cpu: it needs no
# GPU. Without chromium it fails, unless GRAPHPROF_SKIP_BROWSER_TEST=1 (then ctest shows it skipped).
find_package(Python3 COMPONENTS Interpreter REQUIRED)
add_test(NAME browser.html_report
         COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/browser/html_browser_test.py
                 $<TARGET_FILE:graphprof> ${GRAPHPROF_TEST_DATA} ${CMAKE_CURRENT_BINARY_DIR}/browser_html)
# COST: the three longest CPU tests (this one, plugin.examples_installed, cli.render_bounds) start
# first under ctest -j, so a fresh build, which has no timing history, does not end on them.
set_tests_properties(browser.html_report PROPERTIES LABELS cpu SKIP_RETURN_CODE 77 TIMEOUT 600 COST 70)
