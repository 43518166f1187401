#pragma once
#include <zmq.h>
