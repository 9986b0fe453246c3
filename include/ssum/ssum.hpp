#pragma once
// Everything public in one include.
#include "ssum/cuda_device.hpp"
#include "ssum/errors.hpp"
#include "ssum/generate.hpp"
#include "ssum/int128.hpp"
#include "ssum/memory.hpp"
#include "ssum/merge.hpp"
#include "ssum/merge_path.hpp"
#include "ssum/policy.hpp"
#include "ssum/problem.hpp"
#include "ssum/scan.hpp"
#include "ssum/solve.hpp"
#include "ssum/sort.hpp"
