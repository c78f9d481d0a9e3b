# Warnings for OpScope's own targets (not for the code of third parties).
function(opscope_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic -Wshadow
    -Wnon-virtual-dtor -Wcast-align -Woverloaded-virtual -Wno-unused-parameter)
endfunction()

# Implicit conversions that can lose value or sign, and float silently computed in double:
# every narrowing in the numeric code is written out as a cast, so it can be seen and reviewed.
set(OPSCOPE_CONVERSION_WARNINGS -Wconversion -Wdouble-promotion -Wsign-conversion)

function(opscope_strict_conversions target)
  target_compile_options(${target} PRIVATE ${OPSCOPE_CONVERSION_WARNINGS})
endfunction()
