// Package alsaquiet keeps alsa-lib from writing its own error lines to
// standard error. Without a sound card, every attempt to open or list a
// device makes alsa-lib print a dozen "ALSA lib conf.c:...: ... No such
// file or directory" lines per PCM it evaluates, about thirty in all,
// through its default error handler. Package audio turns those failures
// into one error that names the fix ("no speaker found: ..."), so the raw
// lines are noise in the daemon's journal.
//
// Install puts the handler in place; package audio calls it before each
// sound-system context it creates, so that nothing is loaded in a process
// that never uses sound. alsa-lib is looked up with dlopen, as miniaudio
// does, so a program without libasound still runs.
package alsaquiet

/*
#cgo LDFLAGS: -ldl
#include <dlfcn.h>

static void acbridge_alsa_quiet(const char *file, int line, const char *function, int err, const char *fmt, ...) {
	(void)file; (void)line; (void)function; (void)err; (void)fmt;
}

static void acbridge_alsa_install(void) {
	void *lib = dlopen("libasound.so.2", RTLD_NOW | RTLD_GLOBAL);
	if (!lib) {
		return;
	}
	int (*set)(void *) = (int (*)(void *))dlsym(lib, "snd_lib_error_set_handler");
	if (set) {
		// The library stays loaded (no dlclose): miniaudio's own dlopen
		// then gets this instance, with this handler.
		set((void *)acbridge_alsa_quiet);
	}
}
*/
import "C"

import "sync"

var once sync.Once

// Install silences alsa-lib's error output; only the first call does work.
func Install() { once.Do(func() { C.acbridge_alsa_install() }) }
