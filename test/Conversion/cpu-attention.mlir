// Executes sdpa and sdpa_backward on the host with grouped-query attention
// (2 query heads share 1 key/value head) and checks hand-computed values.
// q = 1, k = [0, log 2], v = [3, 6], scale 1, head dimension 1: the scores
// of every query are [0, log 2], so P = [1/3, 2/3], o = 1/3 * 3 + 2/3 * 6 =
// 5 and logsumexp = log 3. Causally, query 0 sees key 0 only: o = 3,
// logsumexp = 0.
// Backward with the output gradient on one query row per head: dV = P^T dO
// summed over both heads = 2 * [1/3, 2/3]; dS = P * (dO v - dO o) =
// [1/3 * (3 - 5), 2/3 * (6 - 5)] = [-2/3, 2/3]; dQ = dS k = 2/3 log 2;
// dK = dS^T q summed over both heads = [-4/3, 4/3].

// RUN: remat-run %s --function=attention --input=0:1 --input=1:0,0.693147182 --input=2:3,6 --input=3:1,0,1,0 | FileCheck %s --check-prefix=FULL
// RUN: remat-run %s --function=causal --input=0:1 --input=1:0,0.693147182 --input=2:3,6 --input=3:0,1,0,1 | FileCheck %s --check-prefix=CAUSAL

// FULL: @attention result 0 tensor<1x2x2x1xf32>: [[FIVE:(5|4.99999[0-9]*)]] [[FIVE]] [[FIVE]] [[FIVE]]
// FULL-NEXT: @attention result 1 tensor<1x2x2xf32>: 1.09861{{[0-9]*}} 1.09861{{[0-9]*}} 1.09861{{[0-9]*}} 1.09861{{[0-9]*}}
// FULL-NEXT: @attention result 2 tensor<1x2x2x1xf32>: 0.462098{{[0-9]*}} 0 0.462098{{[0-9]*}} 0
// FULL-NEXT: @attention result 3 tensor<1x1x2x1xf32>: -1.33333{{[0-9]*}} 1.33333{{[0-9]*}}
// FULL-NEXT: @attention result 4 tensor<1x1x2x1xf32>: 0.66666{{[0-9]*}} 1.33333{{[0-9]*}}
func.func @attention(%q: tensor<1x2x2x1xf32>, %k: tensor<1x1x2x1xf32>, %v: tensor<1x1x2x1xf32>, %go: tensor<1x2x2x1xf32>) -> (tensor<1x2x2x1xf32>, tensor<1x2x2xf32>, tensor<1x2x2x1xf32>, tensor<1x1x2x1xf32>, tensor<1x1x2x1xf32>) {
  %o, %lse = remat.sdpa %q, %k, %v scale = 1.0 : (tensor<1x2x2x1xf32>, tensor<1x1x2x1xf32>, tensor<1x1x2x1xf32>) -> (tensor<1x2x2x1xf32>, tensor<1x2x2xf32>)
  %gq, %gk, %gv = remat.sdpa_backward %go, %q, %k, %v, %o, %lse scale = 1.0 : (tensor<1x2x2x1xf32>, tensor<1x2x2x1xf32>, tensor<1x1x2x1xf32>, tensor<1x1x2x1xf32>, tensor<1x2x2x1xf32>, tensor<1x2x2xf32>) -> (tensor<1x2x2x1xf32>, tensor<1x1x2x1xf32>, tensor<1x1x2x1xf32>)
  return %o, %lse, %gq, %gk, %gv : tensor<1x2x2x1xf32>, tensor<1x2x2xf32>, tensor<1x2x2x1xf32>, tensor<1x1x2x1xf32>, tensor<1x1x2x1xf32>
}

// CAUSAL: @causal result 0 tensor<1x2x2x1xf32>: 3 [[FIVE:(5|4.99999[0-9]*)]] 3 [[FIVE]]
// CAUSAL-NEXT: @causal result 1 tensor<1x2x2xf32>: 0 1.09861{{[0-9]*}} 0 1.09861{{[0-9]*}}
// CAUSAL-NEXT: @causal result 2 tensor<1x2x2x1xf32>: 0 0.462098{{[0-9]*}} 0 0.462098{{[0-9]*}}
// CAUSAL-NEXT: @causal result 3 tensor<1x1x2x1xf32>: -1.33333{{[0-9]*}} 1.33333{{[0-9]*}}
// CAUSAL-NEXT: @causal result 4 tensor<1x1x2x1xf32>: 0.66666{{[0-9]*}} 1.33333{{[0-9]*}}
func.func @causal(%q: tensor<1x2x2x1xf32>, %k: tensor<1x1x2x1xf32>, %v: tensor<1x1x2x1xf32>, %go: tensor<1x2x2x1xf32>) -> (tensor<1x2x2x1xf32>, tensor<1x2x2xf32>, tensor<1x2x2x1xf32>, tensor<1x1x2x1xf32>, tensor<1x1x2x1xf32>) {
  %o, %lse = remat.sdpa %q, %k, %v scale = 1.0 {causal} : (tensor<1x2x2x1xf32>, tensor<1x1x2x1xf32>, tensor<1x1x2x1xf32>) -> (tensor<1x2x2x1xf32>, tensor<1x2x2xf32>)
  %gq, %gk, %gv = remat.sdpa_backward %go, %q, %k, %v, %o, %lse scale = 1.0 {causal} : (tensor<1x2x2x1xf32>, tensor<1x2x2x1xf32>, tensor<1x1x2x1xf32>, tensor<1x1x2x1xf32>, tensor<1x2x2x1xf32>, tensor<1x2x2xf32>) -> (tensor<1x2x2x1xf32>, tensor<1x1x2x1xf32>, tensor<1x1x2x1xf32>)
  return %o, %lse, %gq, %gk, %gv : tensor<1x2x2x1xf32>, tensor<1x2x2xf32>, tensor<1x2x2x1xf32>, tensor<1x1x2x1xf32>, tensor<1x1x2x1xf32>
}
