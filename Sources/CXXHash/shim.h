#pragma once
#include <xxhash.h>
