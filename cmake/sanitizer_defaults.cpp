// The sanitizers' options, built into every Kiln program of a sanitizer build, so that a test
// binary, kiln, its compile worker and kiln-player behave the same whether ctest starts them or a
// person does. Options in ASAN_OPTIONS, UBSAN_OPTIONS, LSAN_OPTIONS or TSAN_OPTIONS still win.

extern "C" {

// abort_on_error: a report ends the process with SIGABRT, as a crash would, not with exit code 1
// (a tool that reports a crashed child names the signal either way).
// intercept_tls_get_addr=0: GCC 12's LeakSanitizer can crash ("Tracer caught signal 11") scanning
// the dynamic thread-local storage of libraries opened with dlopen (the script compiler plugin and
// libLLVM behind it); static TLS is still scanned.
__attribute__((visibility("default"), used)) const char* __asan_default_options() {
  return "detect_leaks=1:abort_on_error=1:intercept_tls_get_addr=0";
}

__attribute__((visibility("default"), used)) const char* __ubsan_default_options() {
  return "print_stacktrace=1:halt_on_error=1";
}

__attribute__((visibility("default"), used)) const char* __tsan_default_options() {
  return "halt_on_error=1:second_deadlock_stack=1";
}

__attribute__((visibility("default"), used)) const char* __lsan_default_options() { return "print_suppressions=0"; }

// What Vulkan drivers and layers keep for the life of a process (one-time initialisation inside
// vkCreateInstance: Mesa's lavapipe and the LLVM it compiles with). The render module keeps these
// libraries mapped in sanitizer builds so that a report names them.
__attribute__((visibility("default"), used)) const char* __lsan_default_suppressions() {
  return "leak:libvulkan_lvp.so\n"
         "leak:libLLVM-15.so\n"
         "leak:libVkLayer_khronos_validation.so\n";
}
}
