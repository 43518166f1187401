#pragma once
// libzmq, imported only by DriftTransport. It is loaded at first use (loader.c), not linked: it brings a dozen shared
// libraries with it (libsodium, OpenPGM, NORM, Kerberos), which every process paid for at its start (1.5 ms, a tenth
// of a short repair's) though only the coordinator, the workers and key generation speak ZeroMQ. Its header gives
// the types and constants; each function is called as driftfix_<name> (zmq_functions.def). A function called when
// libzmq cannot be loaded fails as libzmq's own would (-1 or NULL, errno ELIBACC), and driftfix_zmq_load_error()
// says why.
#include <stddef.h>
#include <stdint.h>
#include <zmq.h>

#define DRIFTFIX_ZMQ(type, name, parameters, arguments, failure) type driftfix_##name parameters;
#include "zmq_functions.def"
#undef DRIFTFIX_ZMQ

/// Loads libzmq and every function driftfix calls, once per process. Returns 0, or -1 with the reason in
/// driftfix_zmq_load_error(); every caller after the first gets the first's answer.
int driftfix_zmq_load(void);

/// Why driftfix_zmq_load failed: dlopen's or dlsym's words ("" when it did not).
const char *driftfix_zmq_load_error(void);

/// libzmq's errno for the calling thread (zmq_errno), or errno itself when libzmq is not loaded.
int driftfix_zmq_errno(void);

/// libzmq's text for an error code (zmq_strerror), or the C library's when libzmq is not loaded.
const char *driftfix_zmq_strerror(int code);
