#pragma once
#include <samplerate.h>
