// GPT-2 (4 layers, dim 128, seq 128, batch 4, vocab 1024) as remat_torch.partition
// plans it: PyTorch's random ops (native_dropout) are remat.opaque `random` ops
// with no RNG state among their operands (PyTorch's generator cannot be
// replayed). Exported by remat_torch.measure's gpt2 configuration for
// remat-plan-decision-search.test (the exporter tagged them never_recompute
// then; the tags were taken out when it stopped adding them).
module {
  func.func @joint(%arg0: tensor<1024x128xf32> {remat.role = "input"} loc("primals_1"), %arg1: tensor<128x128xf32> {remat.role = "input"} loc("primals_2"), %arg2: tensor<128xf32> {remat.role = "input"} loc("primals_3"), %arg3: tensor<128xf32> {remat.role = "input"} loc("primals_4"), %arg4: tensor<384x128xf32> {remat.role = "input"} loc("primals_5"), %arg5: tensor<384xf32> {remat.role = "input"} loc("primals_6"), %arg6: tensor<128x128xf32> {remat.role = "input"} loc("primals_7"), %arg7: tensor<128xf32> {remat.role = "input"} loc("primals_8"), %arg8: tensor<128xf32> {remat.role = "input"} loc("primals_9"), %arg9: tensor<128xf32> {remat.role = "input"} loc("primals_10"), %arg10: tensor<512x128xf32> {remat.role = "input"} loc("primals_11"), %arg11: tensor<512xf32> {remat.role = "input"} loc("primals_12"), %arg12: tensor<128x512xf32> {remat.role = "input"} loc("primals_13"), %arg13: tensor<128xf32> {remat.role = "input"} loc("primals_14"), %arg14: tensor<128xf32> {remat.role = "input"} loc("primals_15"), %arg15: tensor<128xf32> {remat.role = "input"} loc("primals_16"), %arg16: tensor<384x128xf32> {remat.role = "input"} loc("primals_17"), %arg17: tensor<384xf32> {remat.role = "input"} loc("primals_18"), %arg18: tensor<128x128xf32> {remat.role = "input"} loc("primals_19"), %arg19: tensor<128xf32> {remat.role = "input"} loc("primals_20"), %arg20: tensor<128xf32> {remat.role = "input"} loc("primals_21"), %arg21: tensor<128xf32> {remat.role = "input"} loc("primals_22"), %arg22: tensor<512x128xf32> {remat.role = "input"} loc("primals_23"), %arg23: tensor<512xf32> {remat.role = "input"} loc("primals_24"), %arg24: tensor<128x512xf32> {remat.role = "input"} loc("primals_25"), %arg25: tensor<128xf32> {remat.role = "input"} loc("primals_26"), %arg26: tensor<128xf32> {remat.role = "input"} loc("primals_27"), %arg27: tensor<128xf32> {remat.role = "input"} loc("primals_28"), %arg28: tensor<384x128xf32> {remat.role = "input"} loc("primals_29"), %arg29: tensor<384xf32> {remat.role = "input"} loc("primals_30"), %arg30: tensor<128x128xf32> {remat.role = "input"} loc("primals_31"), %arg31: tensor<128xf32> {remat.role = "input"} loc("primals_32"), %arg32: tensor<128xf32> {remat.role = "input"} loc("primals_33"), %arg33: tensor<128xf32> {remat.role = "input"} loc("primals_34"), %arg34: tensor<512x128xf32> {remat.role = "input"} loc("primals_35"), %arg35: tensor<512xf32> {remat.role = "input"} loc("primals_36"), %arg36: tensor<128x512xf32> {remat.role = "input"} loc("primals_37"), %arg37: tensor<128xf32> {remat.role = "input"} loc("primals_38"), %arg38: tensor<128xf32> {remat.role = "input"} loc("primals_39"), %arg39: tensor<128xf32> {remat.role = "input"} loc("primals_40"), %arg40: tensor<384x128xf32> {remat.role = "input"} loc("primals_41"), %arg41: tensor<384xf32> {remat.role = "input"} loc("primals_42"), %arg42: tensor<128x128xf32> {remat.role = "input"} loc("primals_43"), %arg43: tensor<128xf32> {remat.role = "input"} loc("primals_44"), %arg44: tensor<128xf32> {remat.role = "input"} loc("primals_45"), %arg45: tensor<128xf32> {remat.role = "input"} loc("primals_46"), %arg46: tensor<512x128xf32> {remat.role = "input"} loc("primals_47"), %arg47: tensor<512xf32> {remat.role = "input"} loc("primals_48"), %arg48: tensor<128x512xf32> {remat.role = "input"} loc("primals_49"), %arg49: tensor<128xf32> {remat.role = "input"} loc("primals_50"), %arg50: tensor<128xf32> {remat.role = "input"} loc("primals_51"), %arg51: tensor<128xf32> {remat.role = "input"} loc("primals_52"), %arg52: tensor<128xi64> {remat.role = "input"} loc("primals_53"), %arg53: tensor<128x128xf32> {remat.role = "input"} loc("primals_54"), %arg54: tensor<128x128xf32> {remat.role = "input"} loc("primals_55"), %arg55: tensor<128x128xf32> {remat.role = "input"} loc("primals_56"), %arg56: tensor<128x128xf32> {remat.role = "input"} loc("primals_57"), %arg57: tensor<4x128xi64> {remat.role = "input"} loc("primals_58"), %arg58: tensor<4x128xi64> {remat.role = "input"} loc("primals_59"), %arg59: tensor<f32> {remat.role = "tangent"} loc("tangents_1")) -> (tensor<f32> {remat.role = "output"}, tensor<1024x128xf32> {remat.grad_of = 0 : i64, remat.role = "grad"}, tensor<128x128xf32> {remat.grad_of = 1 : i64, remat.role = "grad"}, tensor<128xf32> {remat.grad_of = 2 : i64, remat.role = "grad"}, tensor<128xf32> {remat.grad_of = 3 : i64, remat.role = "grad"}, tensor<384x128xf32> {remat.grad_of = 4 : i64, remat.role = "grad"}, tensor<384xf32> {remat.grad_of = 5 : i64, remat.role = "grad"}, tensor<128x128xf32> {remat.grad_of = 6 : i64, remat.role = "grad"}, tensor<128xf32> {remat.grad_of = 7 : i64, remat.role = "grad"}, tensor<128xf32> {remat.grad_of = 8 : i64, remat.role = "grad"}, tensor<128xf32> {remat.grad_of = 9 : i64, remat.role = "grad"}, tensor<512x128xf32> {remat.grad_of = 10 : i64, remat.role = "grad"}, tensor<512xf32> {remat.grad_of = 11 : i64, remat.role = "grad"}, tensor<128x512xf32> {remat.grad_of = 12 : i64, remat.role = "grad"}, tensor<128xf32> {remat.grad_of = 13 : i64, remat.role = "grad"}, tensor<128xf32> {remat.grad_of = 14 : i64, remat.role = "grad"}, tensor<128xf32> {remat.grad_of = 15 : i64, remat.role = "grad"}, tensor<384x128xf32> {remat.grad_of = 16 : i64, remat.role = "grad"}, tensor<384xf32> {remat.grad_of = 17 : i64, remat.role = "grad"}, tensor<128x128xf32> {remat.grad_of = 18 : i64, remat.role = "grad"}, tensor<128xf32> {remat.grad_of = 19 : i64, remat.role = "grad"}, tensor<128xf32> {remat.grad_of = 20 : i64, remat.role = "grad"}, tensor<128xf32> {remat.grad_of = 21 : i64, remat.role = "grad"}, tensor<512x128xf32> {remat.grad_of = 22 : i64, remat.role = "grad"}, tensor<512xf32> {remat.grad_of = 23 : i64, remat.role = "grad"}, tensor<128x512xf32> {remat.grad_of = 24 : i64, remat.role = "grad"}, tensor<128xf32> {remat.grad_of = 25 : i64, remat.role = "grad"}, tensor<128xf32> {remat.grad_of = 26 : i64, remat.role = "grad"}, tensor<128xf32> {remat.grad_of = 27 : i64, remat.role = "grad"}, tensor<384x128xf32> {remat.grad_of = 28 : i64, remat.role = "grad"}, tensor<384xf32> {remat.grad_of = 29 : i64, remat.role = "grad"}, tensor<128x128xf32> {remat.grad_of = 30 : i64, remat.role = "grad"}, tensor<128xf32> {remat.grad_of = 31 : i64, remat.role = "grad"}, tensor<128xf32> {remat.grad_of = 32 : i64, remat.role = "grad"}, tensor<128xf32> {remat.grad_of = 33 : i64, remat.role = "grad"}, tensor<512x128xf32> {remat.grad_of = 34 : i64, remat.role = "grad"}, tensor<512xf32> {remat.grad_of = 35 : i64, remat.role = "grad"}, tensor<128x512xf32> {remat.grad_of = 36 : i64, remat.role = "grad"}, tensor<128xf32> {remat.grad_of = 37 : i64, remat.role = "grad"}, tensor<128xf32> {remat.grad_of = 38 : i64, remat.role = "grad"}, tensor<128xf32> {remat.grad_of = 39 : i64, remat.role = "grad"}, tensor<384x128xf32> {remat.grad_of = 40 : i64, remat.role = "grad"}, tensor<384xf32> {remat.grad_of = 41 : i64, remat.role = "grad"}, tensor<128x128xf32> {remat.grad_of = 42 : i64, remat.role = "grad"}, tensor<128xf32> {remat.grad_of = 43 : i64, remat.role = "grad"}, tensor<128xf32> {remat.grad_of = 44 : i64, remat.role = "grad"}, tensor<128xf32> {remat.grad_of = 45 : i64, remat.role = "grad"}, tensor<512x128xf32> {remat.grad_of = 46 : i64, remat.role = "grad"}, tensor<512xf32> {remat.grad_of = 47 : i64, remat.role = "grad"}, tensor<128x512xf32> {remat.grad_of = 48 : i64, remat.role = "grad"}, tensor<128xf32> {remat.grad_of = 49 : i64, remat.role = "grad"}, tensor<128xf32> {remat.grad_of = 50 : i64, remat.role = "grad"}, tensor<128xf32> {remat.grad_of = 51 : i64, remat.role = "grad"}) attributes {remat.graph = "joint"} {
    %v1 = "remat.embedding"(%arg0, %arg57) {remat.name = "embedding"} : (tensor<1024x128xf32>, tensor<4x128xi64>) -> tensor<4x128x128xf32>
    %v2 = "remat.embedding"(%arg1, %arg52) {remat.name = "embedding_1"} : (tensor<128x128xf32>, tensor<128xi64>) -> tensor<128x128xf32>
    %v3 = "remat.broadcast"(%v2) {remat.name = "add.broadcast"} : (tensor<128x128xf32>) -> tensor<4x128x128xf32>
    %v4 = "remat.add"(%v1, %v3) {remat.name = "add"} : (tensor<4x128x128xf32>, tensor<4x128x128xf32>) -> tensor<4x128x128xf32>
    %v5:2 = "remat.opaque"(%v4) <{op_name = "aten.native_dropout.default", flops = 2.621440e+05 : f64, compute_class = "random", random}> {remat.name = "native_dropout"} : (tensor<4x128x128xf32>) -> (tensor<4x128x128xf32>, tensor<4x128x128xi1>)
    %v6:3 = "remat.layernorm"(%v5#0, %arg2, %arg3) <{eps = 1.0e-05 : f64}> {remat.name = "native_layer_norm"} : (tensor<4x128x128xf32>, tensor<128xf32>, tensor<128xf32>) -> (tensor<4x128x128xf32>, tensor<4x128xf32>, tensor<4x128xf32>)
    %v7 = "remat.reshape"(%v6#1) {remat.name = "native_layer_norm.mean"} : (tensor<4x128xf32>) -> tensor<4x128x1xf32>
    %v8 = "remat.reshape"(%v6#2) {remat.name = "native_layer_norm.rstd"} : (tensor<4x128xf32>) -> tensor<4x128x1xf32>
    %v9 = "remat.reshape"(%v6#0) {remat.name = "view"} : (tensor<4x128x128xf32>) -> tensor<512x128xf32>
    %v10 = "remat.transpose"(%arg4) <{permutation = array<i64: 1, 0>}> {remat.name = "t"} : (tensor<384x128xf32>) -> tensor<128x384xf32>
    %v11 = "remat.matmul"(%v9, %v10) {remat.name = "addmm.mm"} : (tensor<512x128xf32>, tensor<128x384xf32>) -> tensor<512x384xf32>
    %v12 = "remat.broadcast"(%arg5) {remat.name = "addmm.broadcast"} : (tensor<384xf32>) -> tensor<512x384xf32>
    %v13 = "remat.add"(%v11, %v12) {remat.name = "addmm"} : (tensor<512x384xf32>, tensor<512x384xf32>) -> tensor<512x384xf32>
    %v14 = "remat.reshape"(%v13) {remat.name = "view_1"} : (tensor<512x384xf32>) -> tensor<4x128x384xf32>
    %v15 = "remat.slice"(%v14) <{offsets = array<i64: 0, 0, 0>, sizes = array<i64: 4, 128, 128>}> {remat.name = "split.0"} : (tensor<4x128x384xf32>) -> tensor<4x128x128xf32>
    %v16 = "remat.slice"(%v14) <{offsets = array<i64: 0, 0, 128>, sizes = array<i64: 4, 128, 128>}> {remat.name = "split.1"} : (tensor<4x128x384xf32>) -> tensor<4x128x128xf32>
    %v17 = "remat.slice"(%v14) <{offsets = array<i64: 0, 0, 256>, sizes = array<i64: 4, 128, 128>}> {remat.name = "split.2"} : (tensor<4x128x384xf32>) -> tensor<4x128x128xf32>
    %v18 = "remat.reshape"(%v15) {remat.name = "view_2"} : (tensor<4x128x128xf32>) -> tensor<4x128x4x32xf32>
    %v19 = "remat.transpose"(%v18) <{permutation = array<i64: 0, 2, 1, 3>}> {remat.name = "transpose"} : (tensor<4x128x4x32xf32>) -> tensor<4x4x128x32xf32>
    %v20 = "remat.reshape"(%v16) {remat.name = "view_3"} : (tensor<4x128x128xf32>) -> tensor<4x128x4x32xf32>
    %v21 = "remat.transpose"(%v20) <{permutation = array<i64: 0, 2, 1, 3>}> {remat.name = "transpose_1"} : (tensor<4x128x4x32xf32>) -> tensor<4x4x128x32xf32>
    %v22 = "remat.reshape"(%v17) {remat.name = "view_4"} : (tensor<4x128x128xf32>) -> tensor<4x128x4x32xf32>
    %v23 = "remat.transpose"(%v22) <{permutation = array<i64: 0, 2, 1, 3>}> {remat.name = "transpose_2"} : (tensor<4x128x4x32xf32>) -> tensor<4x4x128x32xf32>
    %v24 = "remat.transpose"(%v21) <{permutation = array<i64: 0, 1, 3, 2>}> {remat.name = "transpose_3"} : (tensor<4x4x128x32xf32>) -> tensor<4x4x32x128xf32>
    %v25 = "remat.reshape"(%v19) {remat.name = "_unsafe_view"} : (tensor<4x4x128x32xf32>) -> tensor<16x128x32xf32>
    %v26 = "remat.reshape"(%v24) {remat.name = "_unsafe_view_1"} : (tensor<4x4x32x128xf32>) -> tensor<16x32x128xf32>
    %v27 = "remat.matmul"(%v25, %v26) {remat.name = "bmm"} : (tensor<16x128x32xf32>, tensor<16x32x128xf32>) -> tensor<16x128x128xf32>
    %v28 = "remat.reshape"(%v27) {remat.name = "view_5"} : (tensor<16x128x128xf32>) -> tensor<4x4x128x128xf32>
    %v29 = "remat.constant"() <{value = dense<5.656854249492381> : tensor<f32>}> {remat.name = "div.divisor"} : () -> tensor<f32>
    %v30 = "remat.broadcast"(%v29) {remat.name = "div.broadcast"} : (tensor<f32>) -> tensor<4x4x128x128xf32>
    %v31 = "remat.div"(%v28, %v30) {remat.name = "div"} : (tensor<4x4x128x128xf32>, tensor<4x4x128x128xf32>) -> tensor<4x4x128x128xf32>
    %v32 = "remat.broadcast"(%arg53) {remat.name = "add_1.broadcast"} : (tensor<128x128xf32>) -> tensor<4x4x128x128xf32>
    %v33 = "remat.add"(%v31, %v32) {remat.name = "add_1"} : (tensor<4x4x128x128xf32>, tensor<4x4x128x128xf32>) -> tensor<4x4x128x128xf32>
    %v34 = "remat.softmax"(%v33) <{dim = 3 : i64}> {remat.name = "_softmax"} : (tensor<4x4x128x128xf32>) -> tensor<4x4x128x128xf32>
    %v35:2 = "remat.opaque"(%v34) <{op_name = "aten.native_dropout.default", flops = 1.048576e+06 : f64, compute_class = "random", random}> {remat.name = "native_dropout_1"} : (tensor<4x4x128x128xf32>) -> (tensor<4x4x128x128xf32>, tensor<4x4x128x128xi1>)
    %v36 = "remat.reshape"(%v35#0) {remat.name = "view_6"} : (tensor<4x4x128x128xf32>) -> tensor<16x128x128xf32>
    %v37 = "remat.reshape"(%v23) {remat.name = "_unsafe_view_2"} : (tensor<4x4x128x32xf32>) -> tensor<16x128x32xf32>
    %v38 = "remat.matmul"(%v36, %v37) {remat.name = "bmm_1"} : (tensor<16x128x128xf32>, tensor<16x128x32xf32>) -> tensor<16x128x32xf32>
    %v39 = "remat.reshape"(%v38) {remat.name = "view_7"} : (tensor<16x128x32xf32>) -> tensor<4x4x128x32xf32>
    %v40 = "remat.transpose"(%v39) <{permutation = array<i64: 0, 2, 1, 3>}> {remat.name = "transpose_4"} : (tensor<4x4x128x32xf32>) -> tensor<4x128x4x32xf32>
    %v41 = "remat.reshape"(%v40) {remat.name = "_unsafe_view_3"} : (tensor<4x128x4x32xf32>) -> tensor<4x128x128xf32>
    %v42 = "remat.reshape"(%v41) {remat.name = "view_8"} : (tensor<4x128x128xf32>) -> tensor<512x128xf32>
    %v43 = "remat.transpose"(%arg6) <{permutation = array<i64: 1, 0>}> {remat.name = "t_1"} : (tensor<128x128xf32>) -> tensor<128x128xf32>
    %v44 = "remat.matmul"(%v42, %v43) {remat.name = "addmm_1.mm"} : (tensor<512x128xf32>, tensor<128x128xf32>) -> tensor<512x128xf32>
    %v45 = "remat.broadcast"(%arg7) {remat.name = "addmm_1.broadcast"} : (tensor<128xf32>) -> tensor<512x128xf32>
    %v46 = "remat.add"(%v44, %v45) {remat.name = "addmm_1"} : (tensor<512x128xf32>, tensor<512x128xf32>) -> tensor<512x128xf32>
    %v47 = "remat.reshape"(%v46) {remat.name = "view_9"} : (tensor<512x128xf32>) -> tensor<4x128x128xf32>
    %v48:2 = "remat.opaque"(%v47) <{op_name = "aten.native_dropout.default", flops = 2.621440e+05 : f64, compute_class = "random", random}> {remat.name = "native_dropout_2"} : (tensor<4x128x128xf32>) -> (tensor<4x128x128xf32>, tensor<4x128x128xi1>)
    %v49 = "remat.add"(%v5#0, %v48#0) {remat.name = "add_2"} : (tensor<4x128x128xf32>, tensor<4x128x128xf32>) -> tensor<4x128x128xf32>
    %v50:3 = "remat.layernorm"(%v49, %arg8, %arg9) <{eps = 1.0e-05 : f64}> {remat.name = "native_layer_norm_1"} : (tensor<4x128x128xf32>, tensor<128xf32>, tensor<128xf32>) -> (tensor<4x128x128xf32>, tensor<4x128xf32>, tensor<4x128xf32>)
    %v51 = "remat.reshape"(%v50#1) {remat.name = "native_layer_norm_1.mean"} : (tensor<4x128xf32>) -> tensor<4x128x1xf32>
    %v52 = "remat.reshape"(%v50#2) {remat.name = "native_layer_norm_1.rstd"} : (tensor<4x128xf32>) -> tensor<4x128x1xf32>
    %v53 = "remat.reshape"(%v50#0) {remat.name = "view_10"} : (tensor<4x128x128xf32>) -> tensor<512x128xf32>
    %v54 = "remat.transpose"(%arg10) <{permutation = array<i64: 1, 0>}> {remat.name = "t_2"} : (tensor<512x128xf32>) -> tensor<128x512xf32>
    %v55 = "remat.matmul"(%v53, %v54) {remat.name = "addmm_2.mm"} : (tensor<512x128xf32>, tensor<128x512xf32>) -> tensor<512x512xf32>
    %v56 = "remat.broadcast"(%arg11) {remat.name = "addmm_2.broadcast"} : (tensor<512xf32>) -> tensor<512x512xf32>
    %v57 = "remat.add"(%v55, %v56) {remat.name = "addmm_2"} : (tensor<512x512xf32>, tensor<512x512xf32>) -> tensor<512x512xf32>
    %v58 = "remat.reshape"(%v57) {remat.name = "view_11"} : (tensor<512x512xf32>) -> tensor<4x128x512xf32>
    %v59 = "remat.gelu"(%v58) <{approximate = "tanh"}> {remat.name = "gelu"} : (tensor<4x128x512xf32>) -> tensor<4x128x512xf32>
    %v60 = "remat.reshape"(%v59) {remat.name = "view_12"} : (tensor<4x128x512xf32>) -> tensor<512x512xf32>
    %v61 = "remat.transpose"(%arg12) <{permutation = array<i64: 1, 0>}> {remat.name = "t_3"} : (tensor<128x512xf32>) -> tensor<512x128xf32>
    %v62 = "remat.matmul"(%v60, %v61) {remat.name = "addmm_3.mm"} : (tensor<512x512xf32>, tensor<512x128xf32>) -> tensor<512x128xf32>
    %v63 = "remat.broadcast"(%arg13) {remat.name = "addmm_3.broadcast"} : (tensor<128xf32>) -> tensor<512x128xf32>
    %v64 = "remat.add"(%v62, %v63) {remat.name = "addmm_3"} : (tensor<512x128xf32>, tensor<512x128xf32>) -> tensor<512x128xf32>
    %v65 = "remat.reshape"(%v64) {remat.name = "view_13"} : (tensor<512x128xf32>) -> tensor<4x128x128xf32>
    %v66:2 = "remat.opaque"(%v65) <{op_name = "aten.native_dropout.default", flops = 2.621440e+05 : f64, compute_class = "random", random}> {remat.name = "native_dropout_3"} : (tensor<4x128x128xf32>) -> (tensor<4x128x128xf32>, tensor<4x128x128xi1>)
    %v67 = "remat.add"(%v49, %v66#0) {remat.name = "add_3"} : (tensor<4x128x128xf32>, tensor<4x128x128xf32>) -> tensor<4x128x128xf32>
    %v68:3 = "remat.layernorm"(%v67, %arg14, %arg15) <{eps = 1.0e-05 : f64}> {remat.name = "native_layer_norm_2"} : (tensor<4x128x128xf32>, tensor<128xf32>, tensor<128xf32>) -> (tensor<4x128x128xf32>, tensor<4x128xf32>, tensor<4x128xf32>)
    %v69 = "remat.reshape"(%v68#1) {remat.name = "native_layer_norm_2.mean"} : (tensor<4x128xf32>) -> tensor<4x128x1xf32>
    %v70 = "remat.reshape"(%v68#2) {remat.name = "native_layer_norm_2.rstd"} : (tensor<4x128xf32>) -> tensor<4x128x1xf32>
    %v71 = "remat.reshape"(%v68#0) {remat.name = "view_14"} : (tensor<4x128x128xf32>) -> tensor<512x128xf32>
    %v72 = "remat.transpose"(%arg16) <{permutation = array<i64: 1, 0>}> {remat.name = "t_4"} : (tensor<384x128xf32>) -> tensor<128x384xf32>
    %v73 = "remat.matmul"(%v71, %v72) {remat.name = "addmm_4.mm"} : (tensor<512x128xf32>, tensor<128x384xf32>) -> tensor<512x384xf32>
    %v74 = "remat.broadcast"(%arg17) {remat.name = "addmm_4.broadcast"} : (tensor<384xf32>) -> tensor<512x384xf32>
    %v75 = "remat.add"(%v73, %v74) {remat.name = "addmm_4"} : (tensor<512x384xf32>, tensor<512x384xf32>) -> tensor<512x384xf32>
    %v76 = "remat.reshape"(%v75) {remat.name = "view_15"} : (tensor<512x384xf32>) -> tensor<4x128x384xf32>
    %v77 = "remat.slice"(%v76) <{offsets = array<i64: 0, 0, 0>, sizes = array<i64: 4, 128, 128>}> {remat.name = "split_1.0"} : (tensor<4x128x384xf32>) -> tensor<4x128x128xf32>
    %v78 = "remat.slice"(%v76) <{offsets = array<i64: 0, 0, 128>, sizes = array<i64: 4, 128, 128>}> {remat.name = "split_1.1"} : (tensor<4x128x384xf32>) -> tensor<4x128x128xf32>
    %v79 = "remat.slice"(%v76) <{offsets = array<i64: 0, 0, 256>, sizes = array<i64: 4, 128, 128>}> {remat.name = "split_1.2"} : (tensor<4x128x384xf32>) -> tensor<4x128x128xf32>
    %v80 = "remat.reshape"(%v77) {remat.name = "view_16"} : (tensor<4x128x128xf32>) -> tensor<4x128x4x32xf32>
    %v81 = "remat.transpose"(%v80) <{permutation = array<i64: 0, 2, 1, 3>}> {remat.name = "transpose_5"} : (tensor<4x128x4x32xf32>) -> tensor<4x4x128x32xf32>
    %v82 = "remat.reshape"(%v78) {remat.name = "view_17"} : (tensor<4x128x128xf32>) -> tensor<4x128x4x32xf32>
    %v83 = "remat.transpose"(%v82) <{permutation = array<i64: 0, 2, 1, 3>}> {remat.name = "transpose_6"} : (tensor<4x128x4x32xf32>) -> tensor<4x4x128x32xf32>
    %v84 = "remat.reshape"(%v79) {remat.name = "view_18"} : (tensor<4x128x128xf32>) -> tensor<4x128x4x32xf32>
    %v85 = "remat.transpose"(%v84) <{permutation = array<i64: 0, 2, 1, 3>}> {remat.name = "transpose_7"} : (tensor<4x128x4x32xf32>) -> tensor<4x4x128x32xf32>
    %v86 = "remat.transpose"(%v83) <{permutation = array<i64: 0, 1, 3, 2>}> {remat.name = "transpose_8"} : (tensor<4x4x128x32xf32>) -> tensor<4x4x32x128xf32>
    %v87 = "remat.reshape"(%v81) {remat.name = "_unsafe_view_4"} : (tensor<4x4x128x32xf32>) -> tensor<16x128x32xf32>
    %v88 = "remat.reshape"(%v86) {remat.name = "_unsafe_view_5"} : (tensor<4x4x32x128xf32>) -> tensor<16x32x128xf32>
    %v89 = "remat.matmul"(%v87, %v88) {remat.name = "bmm_2"} : (tensor<16x128x32xf32>, tensor<16x32x128xf32>) -> tensor<16x128x128xf32>
    %v90 = "remat.reshape"(%v89) {remat.name = "view_19"} : (tensor<16x128x128xf32>) -> tensor<4x4x128x128xf32>
    %v91 = "remat.constant"() <{value = dense<5.656854249492381> : tensor<f32>}> {remat.name = "div_1.divisor"} : () -> tensor<f32>
    %v92 = "remat.broadcast"(%v91) {remat.name = "div_1.broadcast"} : (tensor<f32>) -> tensor<4x4x128x128xf32>
    %v93 = "remat.div"(%v90, %v92) {remat.name = "div_1"} : (tensor<4x4x128x128xf32>, tensor<4x4x128x128xf32>) -> tensor<4x4x128x128xf32>
    %v94 = "remat.broadcast"(%arg54) {remat.name = "add_4.broadcast"} : (tensor<128x128xf32>) -> tensor<4x4x128x128xf32>
    %v95 = "remat.add"(%v93, %v94) {remat.name = "add_4"} : (tensor<4x4x128x128xf32>, tensor<4x4x128x128xf32>) -> tensor<4x4x128x128xf32>
    %v96 = "remat.softmax"(%v95) <{dim = 3 : i64}> {remat.name = "_softmax_1"} : (tensor<4x4x128x128xf32>) -> tensor<4x4x128x128xf32>
    %v97:2 = "remat.opaque"(%v96) <{op_name = "aten.native_dropout.default", flops = 1.048576e+06 : f64, compute_class = "random", random}> {remat.name = "native_dropout_4"} : (tensor<4x4x128x128xf32>) -> (tensor<4x4x128x128xf32>, tensor<4x4x128x128xi1>)
    %v98 = "remat.reshape"(%v97#0) {remat.name = "view_20"} : (tensor<4x4x128x128xf32>) -> tensor<16x128x128xf32>
    %v99 = "remat.reshape"(%v85) {remat.name = "_unsafe_view_6"} : (tensor<4x4x128x32xf32>) -> tensor<16x128x32xf32>
    %v100 = "remat.matmul"(%v98, %v99) {remat.name = "bmm_3"} : (tensor<16x128x128xf32>, tensor<16x128x32xf32>) -> tensor<16x128x32xf32>
    %v101 = "remat.reshape"(%v100) {remat.name = "view_21"} : (tensor<16x128x32xf32>) -> tensor<4x4x128x32xf32>
    %v102 = "remat.transpose"(%v101) <{permutation = array<i64: 0, 2, 1, 3>}> {remat.name = "transpose_9"} : (tensor<4x4x128x32xf32>) -> tensor<4x128x4x32xf32>
    %v103 = "remat.reshape"(%v102) {remat.name = "_unsafe_view_7"} : (tensor<4x128x4x32xf32>) -> tensor<4x128x128xf32>
    %v104 = "remat.reshape"(%v103) {remat.name = "view_22"} : (tensor<4x128x128xf32>) -> tensor<512x128xf32>
    %v105 = "remat.transpose"(%arg18) <{permutation = array<i64: 1, 0>}> {remat.name = "t_5"} : (tensor<128x128xf32>) -> tensor<128x128xf32>
    %v106 = "remat.matmul"(%v104, %v105) {remat.name = "addmm_5.mm"} : (tensor<512x128xf32>, tensor<128x128xf32>) -> tensor<512x128xf32>
    %v107 = "remat.broadcast"(%arg19) {remat.name = "addmm_5.broadcast"} : (tensor<128xf32>) -> tensor<512x128xf32>
    %v108 = "remat.add"(%v106, %v107) {remat.name = "addmm_5"} : (tensor<512x128xf32>, tensor<512x128xf32>) -> tensor<512x128xf32>
    %v109 = "remat.reshape"(%v108) {remat.name = "view_23"} : (tensor<512x128xf32>) -> tensor<4x128x128xf32>
    %v110:2 = "remat.opaque"(%v109) <{op_name = "aten.native_dropout.default", flops = 2.621440e+05 : f64, compute_class = "random", random}> {remat.name = "native_dropout_5"} : (tensor<4x128x128xf32>) -> (tensor<4x128x128xf32>, tensor<4x128x128xi1>)
    %v111 = "remat.add"(%v67, %v110#0) {remat.name = "add_5"} : (tensor<4x128x128xf32>, tensor<4x128x128xf32>) -> tensor<4x128x128xf32>
    %v112:3 = "remat.layernorm"(%v111, %arg20, %arg21) <{eps = 1.0e-05 : f64}> {remat.name = "native_layer_norm_3"} : (tensor<4x128x128xf32>, tensor<128xf32>, tensor<128xf32>) -> (tensor<4x128x128xf32>, tensor<4x128xf32>, tensor<4x128xf32>)
    %v113 = "remat.reshape"(%v112#1) {remat.name = "native_layer_norm_3.mean"} : (tensor<4x128xf32>) -> tensor<4x128x1xf32>
    %v114 = "remat.reshape"(%v112#2) {remat.name = "native_layer_norm_3.rstd"} : (tensor<4x128xf32>) -> tensor<4x128x1xf32>
    %v115 = "remat.reshape"(%v112#0) {remat.name = "view_24"} : (tensor<4x128x128xf32>) -> tensor<512x128xf32>
    %v116 = "remat.transpose"(%arg22) <{permutation = array<i64: 1, 0>}> {remat.name = "t_6"} : (tensor<512x128xf32>) -> tensor<128x512xf32>
    %v117 = "remat.matmul"(%v115, %v116) {remat.name = "addmm_6.mm"} : (tensor<512x128xf32>, tensor<128x512xf32>) -> tensor<512x512xf32>
    %v118 = "remat.broadcast"(%arg23) {remat.name = "addmm_6.broadcast"} : (tensor<512xf32>) -> tensor<512x512xf32>
    %v119 = "remat.add"(%v117, %v118) {remat.name = "addmm_6"} : (tensor<512x512xf32>, tensor<512x512xf32>) -> tensor<512x512xf32>
    %v120 = "remat.reshape"(%v119) {remat.name = "view_25"} : (tensor<512x512xf32>) -> tensor<4x128x512xf32>
    %v121 = "remat.gelu"(%v120) <{approximate = "tanh"}> {remat.name = "gelu_1"} : (tensor<4x128x512xf32>) -> tensor<4x128x512xf32>
    %v122 = "remat.reshape"(%v121) {remat.name = "view_26"} : (tensor<4x128x512xf32>) -> tensor<512x512xf32>
    %v123 = "remat.transpose"(%arg24) <{permutation = array<i64: 1, 0>}> {remat.name = "t_7"} : (tensor<128x512xf32>) -> tensor<512x128xf32>
    %v124 = "remat.matmul"(%v122, %v123) {remat.name = "addmm_7.mm"} : (tensor<512x512xf32>, tensor<512x128xf32>) -> tensor<512x128xf32>
    %v125 = "remat.broadcast"(%arg25) {remat.name = "addmm_7.broadcast"} : (tensor<128xf32>) -> tensor<512x128xf32>
    %v126 = "remat.add"(%v124, %v125) {remat.name = "addmm_7"} : (tensor<512x128xf32>, tensor<512x128xf32>) -> tensor<512x128xf32>
    %v127 = "remat.reshape"(%v126) {remat.name = "view_27"} : (tensor<512x128xf32>) -> tensor<4x128x128xf32>
    %v128:2 = "remat.opaque"(%v127) <{op_name = "aten.native_dropout.default", flops = 2.621440e+05 : f64, compute_class = "random", random}> {remat.name = "native_dropout_6"} : (tensor<4x128x128xf32>) -> (tensor<4x128x128xf32>, tensor<4x128x128xi1>)
    %v129 = "remat.add"(%v111, %v128#0) {remat.name = "add_6"} : (tensor<4x128x128xf32>, tensor<4x128x128xf32>) -> tensor<4x128x128xf32>
    %v130:3 = "remat.layernorm"(%v129, %arg26, %arg27) <{eps = 1.0e-05 : f64}> {remat.name = "native_layer_norm_4"} : (tensor<4x128x128xf32>, tensor<128xf32>, tensor<128xf32>) -> (tensor<4x128x128xf32>, tensor<4x128xf32>, tensor<4x128xf32>)
    %v131 = "remat.reshape"(%v130#1) {remat.name = "native_layer_norm_4.mean"} : (tensor<4x128xf32>) -> tensor<4x128x1xf32>
    %v132 = "remat.reshape"(%v130#2) {remat.name = "native_layer_norm_4.rstd"} : (tensor<4x128xf32>) -> tensor<4x128x1xf32>
    %v133 = "remat.reshape"(%v130#0) {remat.name = "view_28"} : (tensor<4x128x128xf32>) -> tensor<512x128xf32>
    %v134 = "remat.transpose"(%arg28) <{permutation = array<i64: 1, 0>}> {remat.name = "t_8"} : (tensor<384x128xf32>) -> tensor<128x384xf32>
    %v135 = "remat.matmul"(%v133, %v134) {remat.name = "addmm_8.mm"} : (tensor<512x128xf32>, tensor<128x384xf32>) -> tensor<512x384xf32>
    %v136 = "remat.broadcast"(%arg29) {remat.name = "addmm_8.broadcast"} : (tensor<384xf32>) -> tensor<512x384xf32>
    %v137 = "remat.add"(%v135, %v136) {remat.name = "addmm_8"} : (tensor<512x384xf32>, tensor<512x384xf32>) -> tensor<512x384xf32>
    %v138 = "remat.reshape"(%v137) {remat.name = "view_29"} : (tensor<512x384xf32>) -> tensor<4x128x384xf32>
    %v139 = "remat.slice"(%v138) <{offsets = array<i64: 0, 0, 0>, sizes = array<i64: 4, 128, 128>}> {remat.name = "split_2.0"} : (tensor<4x128x384xf32>) -> tensor<4x128x128xf32>
    %v140 = "remat.slice"(%v138) <{offsets = array<i64: 0, 0, 128>, sizes = array<i64: 4, 128, 128>}> {remat.name = "split_2.1"} : (tensor<4x128x384xf32>) -> tensor<4x128x128xf32>
    %v141 = "remat.slice"(%v138) <{offsets = array<i64: 0, 0, 256>, sizes = array<i64: 4, 128, 128>}> {remat.name = "split_2.2"} : (tensor<4x128x384xf32>) -> tensor<4x128x128xf32>
    %v142 = "remat.reshape"(%v139) {remat.name = "view_30"} : (tensor<4x128x128xf32>) -> tensor<4x128x4x32xf32>
    %v143 = "remat.transpose"(%v142) <{permutation = array<i64: 0, 2, 1, 3>}> {remat.name = "transpose_10"} : (tensor<4x128x4x32xf32>) -> tensor<4x4x128x32xf32>
    %v144 = "remat.reshape"(%v140) {remat.name = "view_31"} : (tensor<4x128x128xf32>) -> tensor<4x128x4x32xf32>
    %v145 = "remat.transpose"(%v144) <{permutation = array<i64: 0, 2, 1, 3>}> {remat.name = "transpose_11"} : (tensor<4x128x4x32xf32>) -> tensor<4x4x128x32xf32>
    %v146 = "remat.reshape"(%v141) {remat.name = "view_32"} : (tensor<4x128x128xf32>) -> tensor<4x128x4x32xf32>
    %v147 = "remat.transpose"(%v146) <{permutation = array<i64: 0, 2, 1, 3>}> {remat.name = "transpose_12"} : (tensor<4x128x4x32xf32>) -> tensor<4x4x128x32xf32>
    %v148 = "remat.transpose"(%v145) <{permutation = array<i64: 0, 1, 3, 2>}> {remat.name = "transpose_13"} : (tensor<4x4x128x32xf32>) -> tensor<4x4x32x128xf32>
    %v149 = "remat.reshape"(%v143) {remat.name = "_unsafe_view_8"} : (tensor<4x4x128x32xf32>) -> tensor<16x128x32xf32>
    %v150 = "remat.reshape"(%v148) {remat.name = "_unsafe_view_9"} : (tensor<4x4x32x128xf32>) -> tensor<16x32x128xf32>
    %v151 = "remat.matmul"(%v149, %v150) {remat.name = "bmm_4"} : (tensor<16x128x32xf32>, tensor<16x32x128xf32>) -> tensor<16x128x128xf32>
    %v152 = "remat.reshape"(%v151) {remat.name = "view_33"} : (tensor<16x128x128xf32>) -> tensor<4x4x128x128xf32>
    %v153 = "remat.constant"() <{value = dense<5.656854249492381> : tensor<f32>}> {remat.name = "div_2.divisor"} : () -> tensor<f32>
    %v154 = "remat.broadcast"(%v153) {remat.name = "div_2.broadcast"} : (tensor<f32>) -> tensor<4x4x128x128xf32>
    %v155 = "remat.div"(%v152, %v154) {remat.name = "div_2"} : (tensor<4x4x128x128xf32>, tensor<4x4x128x128xf32>) -> tensor<4x4x128x128xf32>
    %v156 = "remat.broadcast"(%arg55) {remat.name = "add_7.broadcast"} : (tensor<128x128xf32>) -> tensor<4x4x128x128xf32>
    %v157 = "remat.add"(%v155, %v156) {remat.name = "add_7"} : (tensor<4x4x128x128xf32>, tensor<4x4x128x128xf32>) -> tensor<4x4x128x128xf32>
    %v158 = "remat.softmax"(%v157) <{dim = 3 : i64}> {remat.name = "_softmax_2"} : (tensor<4x4x128x128xf32>) -> tensor<4x4x128x128xf32>
    %v159:2 = "remat.opaque"(%v158) <{op_name = "aten.native_dropout.default", flops = 1.048576e+06 : f64, compute_class = "random", random}> {remat.name = "native_dropout_7"} : (tensor<4x4x128x128xf32>) -> (tensor<4x4x128x128xf32>, tensor<4x4x128x128xi1>)
    %v160 = "remat.reshape"(%v159#0) {remat.name = "view_34"} : (tensor<4x4x128x128xf32>) -> tensor<16x128x128xf32>
    %v161 = "remat.reshape"(%v147) {remat.name = "_unsafe_view_10"} : (tensor<4x4x128x32xf32>) -> tensor<16x128x32xf32>
    %v162 = "remat.matmul"(%v160, %v161) {remat.name = "bmm_5"} : (tensor<16x128x128xf32>, tensor<16x128x32xf32>) -> tensor<16x128x32xf32>
    %v163 = "remat.reshape"(%v162) {remat.name = "view_35"} : (tensor<16x128x32xf32>) -> tensor<4x4x128x32xf32>
    %v164 = "remat.transpose"(%v163) <{permutation = array<i64: 0, 2, 1, 3>}> {remat.name = "transpose_14"} : (tensor<4x4x128x32xf32>) -> tensor<4x128x4x32xf32>
    %v165 = "remat.reshape"(%v164) {remat.name = "_unsafe_view_11"} : (tensor<4x128x4x32xf32>) -> tensor<4x128x128xf32>
    %v166 = "remat.reshape"(%v165) {remat.name = "view_36"} : (tensor<4x128x128xf32>) -> tensor<512x128xf32>
    %v167 = "remat.transpose"(%arg30) <{permutation = array<i64: 1, 0>}> {remat.name = "t_9"} : (tensor<128x128xf32>) -> tensor<128x128xf32>
    %v168 = "remat.matmul"(%v166, %v167) {remat.name = "addmm_9.mm"} : (tensor<512x128xf32>, tensor<128x128xf32>) -> tensor<512x128xf32>
    %v169 = "remat.broadcast"(%arg31) {remat.name = "addmm_9.broadcast"} : (tensor<128xf32>) -> tensor<512x128xf32>
    %v170 = "remat.add"(%v168, %v169) {remat.name = "addmm_9"} : (tensor<512x128xf32>, tensor<512x128xf32>) -> tensor<512x128xf32>
    %v171 = "remat.reshape"(%v170) {remat.name = "view_37"} : (tensor<512x128xf32>) -> tensor<4x128x128xf32>
    %v172:2 = "remat.opaque"(%v171) <{op_name = "aten.native_dropout.default", flops = 2.621440e+05 : f64, compute_class = "random", random}> {remat.name = "native_dropout_8"} : (tensor<4x128x128xf32>) -> (tensor<4x128x128xf32>, tensor<4x128x128xi1>)
    %v173 = "remat.add"(%v129, %v172#0) {remat.name = "add_8"} : (tensor<4x128x128xf32>, tensor<4x128x128xf32>) -> tensor<4x128x128xf32>
    %v174:3 = "remat.layernorm"(%v173, %arg32, %arg33) <{eps = 1.0e-05 : f64}> {remat.name = "native_layer_norm_5"} : (tensor<4x128x128xf32>, tensor<128xf32>, tensor<128xf32>) -> (tensor<4x128x128xf32>, tensor<4x128xf32>, tensor<4x128xf32>)
    %v175 = "remat.reshape"(%v174#1) {remat.name = "native_layer_norm_5.mean"} : (tensor<4x128xf32>) -> tensor<4x128x1xf32>
    %v176 = "remat.reshape"(%v174#2) {remat.name = "native_layer_norm_5.rstd"} : (tensor<4x128xf32>) -> tensor<4x128x1xf32>
    %v177 = "remat.reshape"(%v174#0) {remat.name = "view_38"} : (tensor<4x128x128xf32>) -> tensor<512x128xf32>
    %v178 = "remat.transpose"(%arg34) <{permutation = array<i64: 1, 0>}> {remat.name = "t_10"} : (tensor<512x128xf32>) -> tensor<128x512xf32>
    %v179 = "remat.matmul"(%v177, %v178) {remat.name = "addmm_10.mm"} : (tensor<512x128xf32>, tensor<128x512xf32>) -> tensor<512x512xf32>
    %v180 = "remat.broadcast"(%arg35) {remat.name = "addmm_10.broadcast"} : (tensor<512xf32>) -> tensor<512x512xf32>
    %v181 = "remat.add"(%v179, %v180) {remat.name = "addmm_10"} : (tensor<512x512xf32>, tensor<512x512xf32>) -> tensor<512x512xf32>
    %v182 = "remat.reshape"(%v181) {remat.name = "view_39"} : (tensor<512x512xf32>) -> tensor<4x128x512xf32>
    %v183 = "remat.gelu"(%v182) <{approximate = "tanh"}> {remat.name = "gelu_2"} : (tensor<4x128x512xf32>) -> tensor<4x128x512xf32>
    %v184 = "remat.reshape"(%v183) {remat.name = "view_40"} : (tensor<4x128x512xf32>) -> tensor<512x512xf32>
    %v185 = "remat.transpose"(%arg36) <{permutation = array<i64: 1, 0>}> {remat.name = "t_11"} : (tensor<128x512xf32>) -> tensor<512x128xf32>
    %v186 = "remat.matmul"(%v184, %v185) {remat.name = "addmm_11.mm"} : (tensor<512x512xf32>, tensor<512x128xf32>) -> tensor<512x128xf32>
    %v187 = "remat.broadcast"(%arg37) {remat.name = "addmm_11.broadcast"} : (tensor<128xf32>) -> tensor<512x128xf32>
    %v188 = "remat.add"(%v186, %v187) {remat.name = "addmm_11"} : (tensor<512x128xf32>, tensor<512x128xf32>) -> tensor<512x128xf32>
    %v189 = "remat.reshape"(%v188) {remat.name = "view_41"} : (tensor<512x128xf32>) -> tensor<4x128x128xf32>
    %v190:2 = "remat.opaque"(%v189) <{op_name = "aten.native_dropout.default", flops = 2.621440e+05 : f64, compute_class = "random", random}> {remat.name = "native_dropout_9"} : (tensor<4x128x128xf32>) -> (tensor<4x128x128xf32>, tensor<4x128x128xi1>)
    %v191 = "remat.add"(%v173, %v190#0) {remat.name = "add_9"} : (tensor<4x128x128xf32>, tensor<4x128x128xf32>) -> tensor<4x128x128xf32>
    %v192:3 = "remat.layernorm"(%v191, %arg38, %arg39) <{eps = 1.0e-05 : f64}> {remat.name = "native_layer_norm_6"} : (tensor<4x128x128xf32>, tensor<128xf32>, tensor<128xf32>) -> (tensor<4x128x128xf32>, tensor<4x128xf32>, tensor<4x128xf32>)
    %v193 = "remat.reshape"(%v192#1) {remat.name = "native_layer_norm_6.mean"} : (tensor<4x128xf32>) -> tensor<4x128x1xf32>
    %v194 = "remat.reshape"(%v192#2) {remat.name = "native_layer_norm_6.rstd"} : (tensor<4x128xf32>) -> tensor<4x128x1xf32>
    %v195 = "remat.reshape"(%v192#0) {remat.name = "view_42"} : (tensor<4x128x128xf32>) -> tensor<512x128xf32>
    %v196 = "remat.transpose"(%arg40) <{permutation = array<i64: 1, 0>}> {remat.name = "t_12"} : (tensor<384x128xf32>) -> tensor<128x384xf32>
    %v197 = "remat.matmul"(%v195, %v196) {remat.name = "addmm_12.mm"} : (tensor<512x128xf32>, tensor<128x384xf32>) -> tensor<512x384xf32>
    %v198 = "remat.broadcast"(%arg41) {remat.name = "addmm_12.broadcast"} : (tensor<384xf32>) -> tensor<512x384xf32>
    %v199 = "remat.add"(%v197, %v198) {remat.name = "addmm_12"} : (tensor<512x384xf32>, tensor<512x384xf32>) -> tensor<512x384xf32>
    %v200 = "remat.reshape"(%v199) {remat.name = "view_43"} : (tensor<512x384xf32>) -> tensor<4x128x384xf32>
    %v201 = "remat.slice"(%v200) <{offsets = array<i64: 0, 0, 0>, sizes = array<i64: 4, 128, 128>}> {remat.name = "split_3.0"} : (tensor<4x128x384xf32>) -> tensor<4x128x128xf32>
    %v202 = "remat.slice"(%v200) <{offsets = array<i64: 0, 0, 128>, sizes = array<i64: 4, 128, 128>}> {remat.name = "split_3.1"} : (tensor<4x128x384xf32>) -> tensor<4x128x128xf32>
    %v203 = "remat.slice"(%v200) <{offsets = array<i64: 0, 0, 256>, sizes = array<i64: 4, 128, 128>}> {remat.name = "split_3.2"} : (tensor<4x128x384xf32>) -> tensor<4x128x128xf32>
    %v204 = "remat.reshape"(%v201) {remat.name = "view_44"} : (tensor<4x128x128xf32>) -> tensor<4x128x4x32xf32>
    %v205 = "remat.transpose"(%v204) <{permutation = array<i64: 0, 2, 1, 3>}> {remat.name = "transpose_15"} : (tensor<4x128x4x32xf32>) -> tensor<4x4x128x32xf32>
    %v206 = "remat.reshape"(%v202) {remat.name = "view_45"} : (tensor<4x128x128xf32>) -> tensor<4x128x4x32xf32>
    %v207 = "remat.transpose"(%v206) <{permutation = array<i64: 0, 2, 1, 3>}> {remat.name = "transpose_16"} : (tensor<4x128x4x32xf32>) -> tensor<4x4x128x32xf32>
    %v208 = "remat.reshape"(%v203) {remat.name = "view_46"} : (tensor<4x128x128xf32>) -> tensor<4x128x4x32xf32>
    %v209 = "remat.transpose"(%v208) <{permutation = array<i64: 0, 2, 1, 3>}> {remat.name = "transpose_17"} : (tensor<4x128x4x32xf32>) -> tensor<4x4x128x32xf32>
    %v210 = "remat.transpose"(%v207) <{permutation = array<i64: 0, 1, 3, 2>}> {remat.name = "transpose_18"} : (tensor<4x4x128x32xf32>) -> tensor<4x4x32x128xf32>
    %v211 = "remat.reshape"(%v205) {remat.name = "_unsafe_view_12"} : (tensor<4x4x128x32xf32>) -> tensor<16x128x32xf32>
    %v212 = "remat.reshape"(%v210) {remat.name = "_unsafe_view_13"} : (tensor<4x4x32x128xf32>) -> tensor<16x32x128xf32>
    %v213 = "remat.matmul"(%v211, %v212) {remat.name = "bmm_6"} : (tensor<16x128x32xf32>, tensor<16x32x128xf32>) -> tensor<16x128x128xf32>
    %v214 = "remat.reshape"(%v213) {remat.name = "view_47"} : (tensor<16x128x128xf32>) -> tensor<4x4x128x128xf32>
    %v215 = "remat.constant"() <{value = dense<5.656854249492381> : tensor<f32>}> {remat.name = "div_3.divisor"} : () -> tensor<f32>
    %v216 = "remat.broadcast"(%v215) {remat.name = "div_3.broadcast"} : (tensor<f32>) -> tensor<4x4x128x128xf32>
    %v217 = "remat.div"(%v214, %v216) {remat.name = "div_3"} : (tensor<4x4x128x128xf32>, tensor<4x4x128x128xf32>) -> tensor<4x4x128x128xf32>
    %v218 = "remat.broadcast"(%arg56) {remat.name = "add_10.broadcast"} : (tensor<128x128xf32>) -> tensor<4x4x128x128xf32>
    %v219 = "remat.add"(%v217, %v218) {remat.name = "add_10"} : (tensor<4x4x128x128xf32>, tensor<4x4x128x128xf32>) -> tensor<4x4x128x128xf32>
    %v220 = "remat.softmax"(%v219) <{dim = 3 : i64}> {remat.name = "_softmax_3"} : (tensor<4x4x128x128xf32>) -> tensor<4x4x128x128xf32>
    %v221:2 = "remat.opaque"(%v220) <{op_name = "aten.native_dropout.default", flops = 1.048576e+06 : f64, compute_class = "random", random}> {remat.name = "native_dropout_10"} : (tensor<4x4x128x128xf32>) -> (tensor<4x4x128x128xf32>, tensor<4x4x128x128xi1>)
    %v222 = "remat.reshape"(%v221#0) {remat.name = "view_48"} : (tensor<4x4x128x128xf32>) -> tensor<16x128x128xf32>
    %v223 = "remat.reshape"(%v209) {remat.name = "_unsafe_view_14"} : (tensor<4x4x128x32xf32>) -> tensor<16x128x32xf32>
    %v224 = "remat.matmul"(%v222, %v223) {remat.name = "bmm_7"} : (tensor<16x128x128xf32>, tensor<16x128x32xf32>) -> tensor<16x128x32xf32>
    %v225 = "remat.reshape"(%v224) {remat.name = "view_49"} : (tensor<16x128x32xf32>) -> tensor<4x4x128x32xf32>
    %v226 = "remat.transpose"(%v225) <{permutation = array<i64: 0, 2, 1, 3>}> {remat.name = "transpose_19"} : (tensor<4x4x128x32xf32>) -> tensor<4x128x4x32xf32>
    %v227 = "remat.reshape"(%v226) {remat.name = "_unsafe_view_15"} : (tensor<4x128x4x32xf32>) -> tensor<4x128x128xf32>
    %v228 = "remat.reshape"(%v227) {remat.name = "view_50"} : (tensor<4x128x128xf32>) -> tensor<512x128xf32>
    %v229 = "remat.transpose"(%arg42) <{permutation = array<i64: 1, 0>}> {remat.name = "t_13"} : (tensor<128x128xf32>) -> tensor<128x128xf32>
    %v230 = "remat.matmul"(%v228, %v229) {remat.name = "addmm_13.mm"} : (tensor<512x128xf32>, tensor<128x128xf32>) -> tensor<512x128xf32>
    %v231 = "remat.broadcast"(%arg43) {remat.name = "addmm_13.broadcast"} : (tensor<128xf32>) -> tensor<512x128xf32>
    %v232 = "remat.add"(%v230, %v231) {remat.name = "addmm_13"} : (tensor<512x128xf32>, tensor<512x128xf32>) -> tensor<512x128xf32>
    %v233 = "remat.reshape"(%v232) {remat.name = "view_51"} : (tensor<512x128xf32>) -> tensor<4x128x128xf32>
    %v234:2 = "remat.opaque"(%v233) <{op_name = "aten.native_dropout.default", flops = 2.621440e+05 : f64, compute_class = "random", random}> {remat.name = "native_dropout_11"} : (tensor<4x128x128xf32>) -> (tensor<4x128x128xf32>, tensor<4x128x128xi1>)
    %v235 = "remat.add"(%v191, %v234#0) {remat.name = "add_11"} : (tensor<4x128x128xf32>, tensor<4x128x128xf32>) -> tensor<4x128x128xf32>
    %v236:3 = "remat.layernorm"(%v235, %arg44, %arg45) <{eps = 1.0e-05 : f64}> {remat.name = "native_layer_norm_7"} : (tensor<4x128x128xf32>, tensor<128xf32>, tensor<128xf32>) -> (tensor<4x128x128xf32>, tensor<4x128xf32>, tensor<4x128xf32>)
    %v237 = "remat.reshape"(%v236#1) {remat.name = "native_layer_norm_7.mean"} : (tensor<4x128xf32>) -> tensor<4x128x1xf32>
    %v238 = "remat.reshape"(%v236#2) {remat.name = "native_layer_norm_7.rstd"} : (tensor<4x128xf32>) -> tensor<4x128x1xf32>
    %v239 = "remat.reshape"(%v236#0) {remat.name = "view_52"} : (tensor<4x128x128xf32>) -> tensor<512x128xf32>
    %v240 = "remat.transpose"(%arg46) <{permutation = array<i64: 1, 0>}> {remat.name = "t_14"} : (tensor<512x128xf32>) -> tensor<128x512xf32>
    %v241 = "remat.matmul"(%v239, %v240) {remat.name = "addmm_14.mm"} : (tensor<512x128xf32>, tensor<128x512xf32>) -> tensor<512x512xf32>
    %v242 = "remat.broadcast"(%arg47) {remat.name = "addmm_14.broadcast"} : (tensor<512xf32>) -> tensor<512x512xf32>
    %v243 = "remat.add"(%v241, %v242) {remat.name = "addmm_14"} : (tensor<512x512xf32>, tensor<512x512xf32>) -> tensor<512x512xf32>
    %v244 = "remat.reshape"(%v243) {remat.name = "view_53"} : (tensor<512x512xf32>) -> tensor<4x128x512xf32>
    %v245 = "remat.gelu"(%v244) <{approximate = "tanh"}> {remat.name = "gelu_3"} : (tensor<4x128x512xf32>) -> tensor<4x128x512xf32>
    %v246 = "remat.reshape"(%v245) {remat.name = "view_54"} : (tensor<4x128x512xf32>) -> tensor<512x512xf32>
    %v247 = "remat.transpose"(%arg48) <{permutation = array<i64: 1, 0>}> {remat.name = "t_15"} : (tensor<128x512xf32>) -> tensor<512x128xf32>
    %v248 = "remat.matmul"(%v246, %v247) {remat.name = "addmm_15.mm"} : (tensor<512x512xf32>, tensor<512x128xf32>) -> tensor<512x128xf32>
    %v249 = "remat.broadcast"(%arg49) {remat.name = "addmm_15.broadcast"} : (tensor<128xf32>) -> tensor<512x128xf32>
    %v250 = "remat.add"(%v248, %v249) {remat.name = "addmm_15"} : (tensor<512x128xf32>, tensor<512x128xf32>) -> tensor<512x128xf32>
    %v251 = "remat.reshape"(%v250) {remat.name = "view_55"} : (tensor<512x128xf32>) -> tensor<4x128x128xf32>
    %v252:2 = "remat.opaque"(%v251) <{op_name = "aten.native_dropout.default", flops = 2.621440e+05 : f64, compute_class = "random", random}> {remat.name = "native_dropout_12"} : (tensor<4x128x128xf32>) -> (tensor<4x128x128xf32>, tensor<4x128x128xi1>)
    %v253 = "remat.add"(%v235, %v252#0) {remat.name = "add_12"} : (tensor<4x128x128xf32>, tensor<4x128x128xf32>) -> tensor<4x128x128xf32>
    %v254:3 = "remat.layernorm"(%v253, %arg50, %arg51) <{eps = 1.0e-05 : f64}> {remat.name = "native_layer_norm_8"} : (tensor<4x128x128xf32>, tensor<128xf32>, tensor<128xf32>) -> (tensor<4x128x128xf32>, tensor<4x128xf32>, tensor<4x128xf32>)
    %v255 = "remat.reshape"(%v254#1) {remat.name = "native_layer_norm_8.mean"} : (tensor<4x128xf32>) -> tensor<4x128x1xf32>
    %v256 = "remat.reshape"(%v254#2) {remat.name = "native_layer_norm_8.rstd"} : (tensor<4x128xf32>) -> tensor<4x128x1xf32>
    %v257 = "remat.transpose"(%arg0) <{permutation = array<i64: 1, 0>}> {remat.name = "t_16"} : (tensor<1024x128xf32>) -> tensor<128x1024xf32>
    %v258 = "remat.reshape"(%v254#0) {remat.name = "view_56"} : (tensor<4x128x128xf32>) -> tensor<512x128xf32>
    %v259 = "remat.matmul"(%v258, %v257) {remat.name = "mm"} : (tensor<512x128xf32>, tensor<128x1024xf32>) -> tensor<512x1024xf32>
    %v260 = "remat.reshape"(%v259) {remat.name = "_unsafe_view_16"} : (tensor<512x1024xf32>) -> tensor<4x128x1024xf32>
    %v261 = "remat.reshape"(%v260) {remat.name = "view_57"} : (tensor<4x128x1024xf32>) -> tensor<512x1024xf32>
    %v262 = "remat.reshape"(%arg58) {remat.name = "view_58"} : (tensor<4x128xi64>) -> tensor<512xi64>
    %v263 = "remat.log_softmax"(%v261) <{dim = 1 : i64}> {remat.name = "_log_softmax"} : (tensor<512x1024xf32>) -> tensor<512x1024xf32>
    %v264:2 = "remat.opaque"(%v263, %v262) <{op_name = "aten.nll_loss_forward.default", flops = 5.242880e+05 : f64, compute_class = "reduction"}> {remat.name = "nll_loss_forward"} : (tensor<512x1024xf32>, tensor<512xi64>) -> (tensor<f32>, tensor<f32>)
    %v265 = "remat.opaque"(%arg59, %v263, %v262, %v264#1) <{op_name = "aten.nll_loss_backward.default", flops = 5.242880e+05 : f64, compute_class = "pointwise"}> {remat.name = "nll_loss_backward"} : (tensor<f32>, tensor<512x1024xf32>, tensor<512xi64>, tensor<f32>) -> tensor<512x1024xf32>
    %v266 = "remat.log_softmax_backward"(%v265, %v263) <{dim = 1 : i64}> {remat.name = "_log_softmax_backward_data"} : (tensor<512x1024xf32>, tensor<512x1024xf32>) -> tensor<512x1024xf32>
    %v267 = "remat.reshape"(%v266) {remat.name = "view_59"} : (tensor<512x1024xf32>) -> tensor<4x128x1024xf32>
    %v268 = "remat.reshape"(%v267) {remat.name = "view_60"} : (tensor<4x128x1024xf32>) -> tensor<512x1024xf32>
    %v269 = "remat.transpose"(%v268) <{permutation = array<i64: 1, 0>}> {remat.name = "t_17"} : (tensor<512x1024xf32>) -> tensor<1024x512xf32>
    %v270 = "remat.matmul"(%v269, %v258) {remat.name = "mm_1"} : (tensor<1024x512xf32>, tensor<512x128xf32>) -> tensor<1024x128xf32>
    %v271 = "remat.transpose"(%v270) <{permutation = array<i64: 1, 0>}> {remat.name = "t_18"} : (tensor<1024x128xf32>) -> tensor<128x1024xf32>
    %v272 = "remat.transpose"(%v257) <{permutation = array<i64: 1, 0>}> {remat.name = "t_19"} : (tensor<128x1024xf32>) -> tensor<1024x128xf32>
    %v273 = "remat.matmul"(%v268, %v272) {remat.name = "mm_2"} : (tensor<512x1024xf32>, tensor<1024x128xf32>) -> tensor<512x128xf32>
    %v274 = "remat.reshape"(%v273) {remat.name = "view_61"} : (tensor<512x128xf32>) -> tensor<4x128x128xf32>
    %v275 = "remat.transpose"(%v271) <{permutation = array<i64: 1, 0>}> {remat.name = "t_20"} : (tensor<128x1024xf32>) -> tensor<1024x128xf32>
    %v276 = "remat.reshape"(%v255) {remat.name = "native_layer_norm_backward.mean"} : (tensor<4x128x1xf32>) -> tensor<4x128xf32>
    %v277 = "remat.reshape"(%v256) {remat.name = "native_layer_norm_backward.rstd"} : (tensor<4x128x1xf32>) -> tensor<4x128xf32>
    %v278:3 = "remat.layernorm_backward"(%v274, %v253, %arg50, %v276, %v277) {remat.name = "native_layer_norm_backward"} : (tensor<4x128x128xf32>, tensor<4x128x128xf32>, tensor<128xf32>, tensor<4x128xf32>, tensor<4x128xf32>) -> (tensor<4x128x128xf32>, tensor<128xf32>, tensor<128xf32>)
    %v279 = "remat.dropout_backward"(%v278#0, %v252#1) <{p = 0.1 : f64}> {remat.name = "native_dropout_backward"} : (tensor<4x128x128xf32>, tensor<4x128x128xi1>) -> tensor<4x128x128xf32>
    %v280 = "remat.reshape"(%v279) {remat.name = "view_62"} : (tensor<4x128x128xf32>) -> tensor<512x128xf32>
    %v281 = "remat.transpose"(%v247) <{permutation = array<i64: 1, 0>}> {remat.name = "t_21"} : (tensor<512x128xf32>) -> tensor<128x512xf32>
    %v282 = "remat.matmul"(%v280, %v281) {remat.name = "mm_3"} : (tensor<512x128xf32>, tensor<128x512xf32>) -> tensor<512x512xf32>
    %v283 = "remat.transpose"(%v280) <{permutation = array<i64: 1, 0>}> {remat.name = "t_22"} : (tensor<512x128xf32>) -> tensor<128x512xf32>
    %v284 = "remat.matmul"(%v283, %v246) {remat.name = "mm_4"} : (tensor<128x512xf32>, tensor<512x512xf32>) -> tensor<128x512xf32>
    %v285 = "remat.transpose"(%v284) <{permutation = array<i64: 1, 0>}> {remat.name = "t_23"} : (tensor<128x512xf32>) -> tensor<512x128xf32>
    %v286 = "remat.sum"(%v280) <{dims = array<i64: 0>, keepdim}> {remat.name = "sum_1"} : (tensor<512x128xf32>) -> tensor<1x128xf32>
    %v287 = "remat.reshape"(%v286) {remat.name = "view_63"} : (tensor<1x128xf32>) -> tensor<128xf32>
    %v288 = "remat.transpose"(%v285) <{permutation = array<i64: 1, 0>}> {remat.name = "t_24"} : (tensor<512x128xf32>) -> tensor<128x512xf32>
    %v289 = "remat.reshape"(%v282) {remat.name = "view_64"} : (tensor<512x512xf32>) -> tensor<4x128x512xf32>
    %v290 = "remat.gelu_backward"(%v289, %v244) <{approximate = "tanh"}> {remat.name = "gelu_backward"} : (tensor<4x128x512xf32>, tensor<4x128x512xf32>) -> tensor<4x128x512xf32>
    %v291 = "remat.reshape"(%v290) {remat.name = "view_65"} : (tensor<4x128x512xf32>) -> tensor<512x512xf32>
    %v292 = "remat.transpose"(%v240) <{permutation = array<i64: 1, 0>}> {remat.name = "t_25"} : (tensor<128x512xf32>) -> tensor<512x128xf32>
    %v293 = "remat.matmul"(%v291, %v292) {remat.name = "mm_5"} : (tensor<512x512xf32>, tensor<512x128xf32>) -> tensor<512x128xf32>
    %v294 = "remat.transpose"(%v291) <{permutation = array<i64: 1, 0>}> {remat.name = "t_26"} : (tensor<512x512xf32>) -> tensor<512x512xf32>
    %v295 = "remat.matmul"(%v294, %v239) {remat.name = "mm_6"} : (tensor<512x512xf32>, tensor<512x128xf32>) -> tensor<512x128xf32>
    %v296 = "remat.transpose"(%v295) <{permutation = array<i64: 1, 0>}> {remat.name = "t_27"} : (tensor<512x128xf32>) -> tensor<128x512xf32>
    %v297 = "remat.sum"(%v291) <{dims = array<i64: 0>, keepdim}> {remat.name = "sum_2"} : (tensor<512x512xf32>) -> tensor<1x512xf32>
    %v298 = "remat.reshape"(%v297) {remat.name = "view_66"} : (tensor<1x512xf32>) -> tensor<512xf32>
    %v299 = "remat.transpose"(%v296) <{permutation = array<i64: 1, 0>}> {remat.name = "t_28"} : (tensor<128x512xf32>) -> tensor<512x128xf32>
    %v300 = "remat.reshape"(%v293) {remat.name = "view_67"} : (tensor<512x128xf32>) -> tensor<4x128x128xf32>
    %v301 = "remat.reshape"(%v237) {remat.name = "native_layer_norm_backward_1.mean"} : (tensor<4x128x1xf32>) -> tensor<4x128xf32>
    %v302 = "remat.reshape"(%v238) {remat.name = "native_layer_norm_backward_1.rstd"} : (tensor<4x128x1xf32>) -> tensor<4x128xf32>
    %v303:3 = "remat.layernorm_backward"(%v300, %v235, %arg44, %v301, %v302) {remat.name = "native_layer_norm_backward_1"} : (tensor<4x128x128xf32>, tensor<4x128x128xf32>, tensor<128xf32>, tensor<4x128xf32>, tensor<4x128xf32>) -> (tensor<4x128x128xf32>, tensor<128xf32>, tensor<128xf32>)
    %v304 = "remat.add"(%v278#0, %v303#0) {remat.name = "add_13"} : (tensor<4x128x128xf32>, tensor<4x128x128xf32>) -> tensor<4x128x128xf32>
    %v305 = "remat.dropout_backward"(%v304, %v234#1) <{p = 0.1 : f64}> {remat.name = "native_dropout_backward_1"} : (tensor<4x128x128xf32>, tensor<4x128x128xi1>) -> tensor<4x128x128xf32>
    %v306 = "remat.reshape"(%v305) {remat.name = "view_68"} : (tensor<4x128x128xf32>) -> tensor<512x128xf32>
    %v307 = "remat.transpose"(%v229) <{permutation = array<i64: 1, 0>}> {remat.name = "t_29"} : (tensor<128x128xf32>) -> tensor<128x128xf32>
    %v308 = "remat.matmul"(%v306, %v307) {remat.name = "mm_7"} : (tensor<512x128xf32>, tensor<128x128xf32>) -> tensor<512x128xf32>
    %v309 = "remat.transpose"(%v306) <{permutation = array<i64: 1, 0>}> {remat.name = "t_30"} : (tensor<512x128xf32>) -> tensor<128x512xf32>
    %v310 = "remat.matmul"(%v309, %v228) {remat.name = "mm_8"} : (tensor<128x512xf32>, tensor<512x128xf32>) -> tensor<128x128xf32>
    %v311 = "remat.transpose"(%v310) <{permutation = array<i64: 1, 0>}> {remat.name = "t_31"} : (tensor<128x128xf32>) -> tensor<128x128xf32>
    %v312 = "remat.sum"(%v306) <{dims = array<i64: 0>, keepdim}> {remat.name = "sum_3"} : (tensor<512x128xf32>) -> tensor<1x128xf32>
    %v313 = "remat.reshape"(%v312) {remat.name = "view_69"} : (tensor<1x128xf32>) -> tensor<128xf32>
    %v314 = "remat.transpose"(%v311) <{permutation = array<i64: 1, 0>}> {remat.name = "t_32"} : (tensor<128x128xf32>) -> tensor<128x128xf32>
    %v315 = "remat.reshape"(%v308) {remat.name = "view_70"} : (tensor<512x128xf32>) -> tensor<4x128x128xf32>
    %v316 = "remat.reshape"(%v315) {remat.name = "view_71"} : (tensor<4x128x128xf32>) -> tensor<4x128x4x32xf32>
    %v317 = "remat.transpose"(%v316) <{permutation = array<i64: 0, 2, 1, 3>}> {remat.name = "transpose_20"} : (tensor<4x128x4x32xf32>) -> tensor<4x4x128x32xf32>
    %v318 = "remat.reshape"(%v317) {remat.name = "_unsafe_view_17"} : (tensor<4x4x128x32xf32>) -> tensor<16x128x32xf32>
    %v319 = "remat.transpose"(%v222) <{permutation = array<i64: 0, 2, 1>}> {remat.name = "transpose_21"} : (tensor<16x128x128xf32>) -> tensor<16x128x128xf32>
    %v320 = "remat.matmul"(%v319, %v318) {remat.name = "bmm_8"} : (tensor<16x128x128xf32>, tensor<16x128x32xf32>) -> tensor<16x128x32xf32>
    %v321 = "remat.transpose"(%v223) <{permutation = array<i64: 0, 2, 1>}> {remat.name = "transpose_22"} : (tensor<16x128x32xf32>) -> tensor<16x32x128xf32>
    %v322 = "remat.matmul"(%v318, %v321) {remat.name = "bmm_9"} : (tensor<16x128x32xf32>, tensor<16x32x128xf32>) -> tensor<16x128x128xf32>
    %v323 = "remat.reshape"(%v320) {remat.name = "view_72"} : (tensor<16x128x32xf32>) -> tensor<4x4x128x32xf32>
    %v324 = "remat.reshape"(%v322) {remat.name = "view_73"} : (tensor<16x128x128xf32>) -> tensor<4x4x128x128xf32>
    %v325 = "remat.dropout_backward"(%v324, %v221#1) <{p = 0.1 : f64}> {remat.name = "native_dropout_backward_2"} : (tensor<4x4x128x128xf32>, tensor<4x4x128x128xi1>) -> tensor<4x4x128x128xf32>
    %v326 = "remat.softmax_backward"(%v325, %v220) <{dim = 3 : i64}> {remat.name = "_softmax_backward_data"} : (tensor<4x4x128x128xf32>, tensor<4x4x128x128xf32>) -> tensor<4x4x128x128xf32>
    %v327 = "remat.constant"() <{value = dense<5.656854249492381> : tensor<f32>}> {remat.name = "div_4.divisor"} : () -> tensor<f32>
    %v328 = "remat.broadcast"(%v327) {remat.name = "div_4.broadcast"} : (tensor<f32>) -> tensor<4x4x128x128xf32>
    %v329 = "remat.div"(%v326, %v328) {remat.name = "div_4"} : (tensor<4x4x128x128xf32>, tensor<4x4x128x128xf32>) -> tensor<4x4x128x128xf32>
    %v330 = "remat.reshape"(%v329) {remat.name = "view_74"} : (tensor<4x4x128x128xf32>) -> tensor<16x128x128xf32>
    %v331 = "remat.transpose"(%v211) <{permutation = array<i64: 0, 2, 1>}> {remat.name = "transpose_23"} : (tensor<16x128x32xf32>) -> tensor<16x32x128xf32>
    %v332 = "remat.matmul"(%v331, %v330) {remat.name = "bmm_10"} : (tensor<16x32x128xf32>, tensor<16x128x128xf32>) -> tensor<16x32x128xf32>
    %v333 = "remat.transpose"(%v212) <{permutation = array<i64: 0, 2, 1>}> {remat.name = "transpose_24"} : (tensor<16x32x128xf32>) -> tensor<16x128x32xf32>
    %v334 = "remat.matmul"(%v330, %v333) {remat.name = "bmm_11"} : (tensor<16x128x128xf32>, tensor<16x128x32xf32>) -> tensor<16x128x32xf32>
    %v335 = "remat.reshape"(%v332) {remat.name = "view_75"} : (tensor<16x32x128xf32>) -> tensor<4x4x32x128xf32>
    %v336 = "remat.reshape"(%v334) {remat.name = "view_76"} : (tensor<16x128x32xf32>) -> tensor<4x4x128x32xf32>
    %v337 = "remat.transpose"(%v335) <{permutation = array<i64: 0, 1, 3, 2>}> {remat.name = "transpose_25"} : (tensor<4x4x32x128xf32>) -> tensor<4x4x128x32xf32>
    %v338 = "remat.transpose"(%v323) <{permutation = array<i64: 0, 2, 1, 3>}> {remat.name = "transpose_26"} : (tensor<4x4x128x32xf32>) -> tensor<4x128x4x32xf32>
    %v339 = "remat.reshape"(%v338) {remat.name = "_unsafe_view_18"} : (tensor<4x128x4x32xf32>) -> tensor<4x128x128xf32>
    %v340 = "remat.transpose"(%v337) <{permutation = array<i64: 0, 2, 1, 3>}> {remat.name = "transpose_27"} : (tensor<4x4x128x32xf32>) -> tensor<4x128x4x32xf32>
    %v341 = "remat.reshape"(%v340) {remat.name = "view_77"} : (tensor<4x128x4x32xf32>) -> tensor<4x128x128xf32>
    %v342 = "remat.transpose"(%v336) <{permutation = array<i64: 0, 2, 1, 3>}> {remat.name = "transpose_28"} : (tensor<4x4x128x32xf32>) -> tensor<4x128x4x32xf32>
    %v343 = "remat.reshape"(%v342) {remat.name = "_unsafe_view_19"} : (tensor<4x128x4x32xf32>) -> tensor<4x128x128xf32>
    %v344 = "remat.concat"(%v343, %v341, %v339) <{dim = 2 : i64}> {remat.name = "cat"} : (tensor<4x128x128xf32>, tensor<4x128x128xf32>, tensor<4x128x128xf32>) -> tensor<4x128x384xf32>
    %v345 = "remat.reshape"(%v344) {remat.name = "view_78"} : (tensor<4x128x384xf32>) -> tensor<512x384xf32>
    %v346 = "remat.transpose"(%v196) <{permutation = array<i64: 1, 0>}> {remat.name = "t_33"} : (tensor<128x384xf32>) -> tensor<384x128xf32>
    %v347 = "remat.matmul"(%v345, %v346) {remat.name = "mm_9"} : (tensor<512x384xf32>, tensor<384x128xf32>) -> tensor<512x128xf32>
    %v348 = "remat.transpose"(%v345) <{permutation = array<i64: 1, 0>}> {remat.name = "t_34"} : (tensor<512x384xf32>) -> tensor<384x512xf32>
    %v349 = "remat.matmul"(%v348, %v195) {remat.name = "mm_10"} : (tensor<384x512xf32>, tensor<512x128xf32>) -> tensor<384x128xf32>
    %v350 = "remat.transpose"(%v349) <{permutation = array<i64: 1, 0>}> {remat.name = "t_35"} : (tensor<384x128xf32>) -> tensor<128x384xf32>
    %v351 = "remat.sum"(%v345) <{dims = array<i64: 0>, keepdim}> {remat.name = "sum_4"} : (tensor<512x384xf32>) -> tensor<1x384xf32>
    %v352 = "remat.reshape"(%v351) {remat.name = "view_79"} : (tensor<1x384xf32>) -> tensor<384xf32>
    %v353 = "remat.transpose"(%v350) <{permutation = array<i64: 1, 0>}> {remat.name = "t_36"} : (tensor<128x384xf32>) -> tensor<384x128xf32>
    %v354 = "remat.reshape"(%v347) {remat.name = "view_80"} : (tensor<512x128xf32>) -> tensor<4x128x128xf32>
    %v355 = "remat.reshape"(%v193) {remat.name = "native_layer_norm_backward_2.mean"} : (tensor<4x128x1xf32>) -> tensor<4x128xf32>
    %v356 = "remat.reshape"(%v194) {remat.name = "native_layer_norm_backward_2.rstd"} : (tensor<4x128x1xf32>) -> tensor<4x128xf32>
    %v357:3 = "remat.layernorm_backward"(%v354, %v191, %arg38, %v355, %v356) {remat.name = "native_layer_norm_backward_2"} : (tensor<4x128x128xf32>, tensor<4x128x128xf32>, tensor<128xf32>, tensor<4x128xf32>, tensor<4x128xf32>) -> (tensor<4x128x128xf32>, tensor<128xf32>, tensor<128xf32>)
    %v358 = "remat.add"(%v304, %v357#0) {remat.name = "add_14"} : (tensor<4x128x128xf32>, tensor<4x128x128xf32>) -> tensor<4x128x128xf32>
    %v359 = "remat.dropout_backward"(%v358, %v190#1) <{p = 0.1 : f64}> {remat.name = "native_dropout_backward_3"} : (tensor<4x128x128xf32>, tensor<4x128x128xi1>) -> tensor<4x128x128xf32>
    %v360 = "remat.reshape"(%v359) {remat.name = "view_81"} : (tensor<4x128x128xf32>) -> tensor<512x128xf32>
    %v361 = "remat.transpose"(%v185) <{permutation = array<i64: 1, 0>}> {remat.name = "t_37"} : (tensor<512x128xf32>) -> tensor<128x512xf32>
    %v362 = "remat.matmul"(%v360, %v361) {remat.name = "mm_11"} : (tensor<512x128xf32>, tensor<128x512xf32>) -> tensor<512x512xf32>
    %v363 = "remat.transpose"(%v360) <{permutation = array<i64: 1, 0>}> {remat.name = "t_38"} : (tensor<512x128xf32>) -> tensor<128x512xf32>
    %v364 = "remat.matmul"(%v363, %v184) {remat.name = "mm_12"} : (tensor<128x512xf32>, tensor<512x512xf32>) -> tensor<128x512xf32>
    %v365 = "remat.transpose"(%v364) <{permutation = array<i64: 1, 0>}> {remat.name = "t_39"} : (tensor<128x512xf32>) -> tensor<512x128xf32>
    %v366 = "remat.sum"(%v360) <{dims = array<i64: 0>, keepdim}> {remat.name = "sum_5"} : (tensor<512x128xf32>) -> tensor<1x128xf32>
    %v367 = "remat.reshape"(%v366) {remat.name = "view_82"} : (tensor<1x128xf32>) -> tensor<128xf32>
    %v368 = "remat.transpose"(%v365) <{permutation = array<i64: 1, 0>}> {remat.name = "t_40"} : (tensor<512x128xf32>) -> tensor<128x512xf32>
    %v369 = "remat.reshape"(%v362) {remat.name = "view_83"} : (tensor<512x512xf32>) -> tensor<4x128x512xf32>
    %v370 = "remat.gelu_backward"(%v369, %v182) <{approximate = "tanh"}> {remat.name = "gelu_backward_1"} : (tensor<4x128x512xf32>, tensor<4x128x512xf32>) -> tensor<4x128x512xf32>
    %v371 = "remat.reshape"(%v370) {remat.name = "view_84"} : (tensor<4x128x512xf32>) -> tensor<512x512xf32>
    %v372 = "remat.transpose"(%v178) <{permutation = array<i64: 1, 0>}> {remat.name = "t_41"} : (tensor<128x512xf32>) -> tensor<512x128xf32>
    %v373 = "remat.matmul"(%v371, %v372) {remat.name = "mm_13"} : (tensor<512x512xf32>, tensor<512x128xf32>) -> tensor<512x128xf32>
    %v374 = "remat.transpose"(%v371) <{permutation = array<i64: 1, 0>}> {remat.name = "t_42"} : (tensor<512x512xf32>) -> tensor<512x512xf32>
    %v375 = "remat.matmul"(%v374, %v177) {remat.name = "mm_14"} : (tensor<512x512xf32>, tensor<512x128xf32>) -> tensor<512x128xf32>
    %v376 = "remat.transpose"(%v375) <{permutation = array<i64: 1, 0>}> {remat.name = "t_43"} : (tensor<512x128xf32>) -> tensor<128x512xf32>
    %v377 = "remat.sum"(%v371) <{dims = array<i64: 0>, keepdim}> {remat.name = "sum_6"} : (tensor<512x512xf32>) -> tensor<1x512xf32>
    %v378 = "remat.reshape"(%v377) {remat.name = "view_85"} : (tensor<1x512xf32>) -> tensor<512xf32>
    %v379 = "remat.transpose"(%v376) <{permutation = array<i64: 1, 0>}> {remat.name = "t_44"} : (tensor<128x512xf32>) -> tensor<512x128xf32>
    %v380 = "remat.reshape"(%v373) {remat.name = "view_86"} : (tensor<512x128xf32>) -> tensor<4x128x128xf32>
    %v381 = "remat.reshape"(%v175) {remat.name = "native_layer_norm_backward_3.mean"} : (tensor<4x128x1xf32>) -> tensor<4x128xf32>
    %v382 = "remat.reshape"(%v176) {remat.name = "native_layer_norm_backward_3.rstd"} : (tensor<4x128x1xf32>) -> tensor<4x128xf32>
    %v383:3 = "remat.layernorm_backward"(%v380, %v173, %arg32, %v381, %v382) {remat.name = "native_layer_norm_backward_3"} : (tensor<4x128x128xf32>, tensor<4x128x128xf32>, tensor<128xf32>, tensor<4x128xf32>, tensor<4x128xf32>) -> (tensor<4x128x128xf32>, tensor<128xf32>, tensor<128xf32>)
    %v384 = "remat.add"(%v358, %v383#0) {remat.name = "add_15"} : (tensor<4x128x128xf32>, tensor<4x128x128xf32>) -> tensor<4x128x128xf32>
    %v385 = "remat.dropout_backward"(%v384, %v172#1) <{p = 0.1 : f64}> {remat.name = "native_dropout_backward_4"} : (tensor<4x128x128xf32>, tensor<4x128x128xi1>) -> tensor<4x128x128xf32>
    %v386 = "remat.reshape"(%v385) {remat.name = "view_87"} : (tensor<4x128x128xf32>) -> tensor<512x128xf32>
    %v387 = "remat.transpose"(%v167) <{permutation = array<i64: 1, 0>}> {remat.name = "t_45"} : (tensor<128x128xf32>) -> tensor<128x128xf32>
    %v388 = "remat.matmul"(%v386, %v387) {remat.name = "mm_15"} : (tensor<512x128xf32>, tensor<128x128xf32>) -> tensor<512x128xf32>
    %v389 = "remat.transpose"(%v386) <{permutation = array<i64: 1, 0>}> {remat.name = "t_46"} : (tensor<512x128xf32>) -> tensor<128x512xf32>
    %v390 = "remat.matmul"(%v389, %v166) {remat.name = "mm_16"} : (tensor<128x512xf32>, tensor<512x128xf32>) -> tensor<128x128xf32>
    %v391 = "remat.transpose"(%v390) <{permutation = array<i64: 1, 0>}> {remat.name = "t_47"} : (tensor<128x128xf32>) -> tensor<128x128xf32>
    %v392 = "remat.sum"(%v386) <{dims = array<i64: 0>, keepdim}> {remat.name = "sum_7"} : (tensor<512x128xf32>) -> tensor<1x128xf32>
    %v393 = "remat.reshape"(%v392) {remat.name = "view_88"} : (tensor<1x128xf32>) -> tensor<128xf32>
    %v394 = "remat.transpose"(%v391) <{permutation = array<i64: 1, 0>}> {remat.name = "t_48"} : (tensor<128x128xf32>) -> tensor<128x128xf32>
    %v395 = "remat.reshape"(%v388) {remat.name = "view_89"} : (tensor<512x128xf32>) -> tensor<4x128x128xf32>
    %v396 = "remat.reshape"(%v395) {remat.name = "view_90"} : (tensor<4x128x128xf32>) -> tensor<4x128x4x32xf32>
    %v397 = "remat.transpose"(%v396) <{permutation = array<i64: 0, 2, 1, 3>}> {remat.name = "transpose_29"} : (tensor<4x128x4x32xf32>) -> tensor<4x4x128x32xf32>
    %v398 = "remat.reshape"(%v397) {remat.name = "_unsafe_view_20"} : (tensor<4x4x128x32xf32>) -> tensor<16x128x32xf32>
    %v399 = "remat.transpose"(%v160) <{permutation = array<i64: 0, 2, 1>}> {remat.name = "transpose_30"} : (tensor<16x128x128xf32>) -> tensor<16x128x128xf32>
    %v400 = "remat.matmul"(%v399, %v398) {remat.name = "bmm_12"} : (tensor<16x128x128xf32>, tensor<16x128x32xf32>) -> tensor<16x128x32xf32>
    %v401 = "remat.transpose"(%v161) <{permutation = array<i64: 0, 2, 1>}> {remat.name = "transpose_31"} : (tensor<16x128x32xf32>) -> tensor<16x32x128xf32>
    %v402 = "remat.matmul"(%v398, %v401) {remat.name = "bmm_13"} : (tensor<16x128x32xf32>, tensor<16x32x128xf32>) -> tensor<16x128x128xf32>
    %v403 = "remat.reshape"(%v400) {remat.name = "view_91"} : (tensor<16x128x32xf32>) -> tensor<4x4x128x32xf32>
    %v404 = "remat.reshape"(%v402) {remat.name = "view_92"} : (tensor<16x128x128xf32>) -> tensor<4x4x128x128xf32>
    %v405 = "remat.dropout_backward"(%v404, %v159#1) <{p = 0.1 : f64}> {remat.name = "native_dropout_backward_5"} : (tensor<4x4x128x128xf32>, tensor<4x4x128x128xi1>) -> tensor<4x4x128x128xf32>
    %v406 = "remat.softmax_backward"(%v405, %v158) <{dim = 3 : i64}> {remat.name = "_softmax_backward_data_1"} : (tensor<4x4x128x128xf32>, tensor<4x4x128x128xf32>) -> tensor<4x4x128x128xf32>
    %v407 = "remat.constant"() <{value = dense<5.656854249492381> : tensor<f32>}> {remat.name = "div_5.divisor"} : () -> tensor<f32>
    %v408 = "remat.broadcast"(%v407) {remat.name = "div_5.broadcast"} : (tensor<f32>) -> tensor<4x4x128x128xf32>
    %v409 = "remat.div"(%v406, %v408) {remat.name = "div_5"} : (tensor<4x4x128x128xf32>, tensor<4x4x128x128xf32>) -> tensor<4x4x128x128xf32>
    %v410 = "remat.reshape"(%v409) {remat.name = "view_93"} : (tensor<4x4x128x128xf32>) -> tensor<16x128x128xf32>
    %v411 = "remat.transpose"(%v149) <{permutation = array<i64: 0, 2, 1>}> {remat.name = "transpose_32"} : (tensor<16x128x32xf32>) -> tensor<16x32x128xf32>
    %v412 = "remat.matmul"(%v411, %v410) {remat.name = "bmm_14"} : (tensor<16x32x128xf32>, tensor<16x128x128xf32>) -> tensor<16x32x128xf32>
    %v413 = "remat.transpose"(%v150) <{permutation = array<i64: 0, 2, 1>}> {remat.name = "transpose_33"} : (tensor<16x32x128xf32>) -> tensor<16x128x32xf32>
    %v414 = "remat.matmul"(%v410, %v413) {remat.name = "bmm_15"} : (tensor<16x128x128xf32>, tensor<16x128x32xf32>) -> tensor<16x128x32xf32>
    %v415 = "remat.reshape"(%v412) {remat.name = "view_94"} : (tensor<16x32x128xf32>) -> tensor<4x4x32x128xf32>
    %v416 = "remat.reshape"(%v414) {remat.name = "view_95"} : (tensor<16x128x32xf32>) -> tensor<4x4x128x32xf32>
    %v417 = "remat.transpose"(%v415) <{permutation = array<i64: 0, 1, 3, 2>}> {remat.name = "transpose_34"} : (tensor<4x4x32x128xf32>) -> tensor<4x4x128x32xf32>
    %v418 = "remat.transpose"(%v403) <{permutation = array<i64: 0, 2, 1, 3>}> {remat.name = "transpose_35"} : (tensor<4x4x128x32xf32>) -> tensor<4x128x4x32xf32>
    %v419 = "remat.reshape"(%v418) {remat.name = "_unsafe_view_21"} : (tensor<4x128x4x32xf32>) -> tensor<4x128x128xf32>
    %v420 = "remat.transpose"(%v417) <{permutation = array<i64: 0, 2, 1, 3>}> {remat.name = "transpose_36"} : (tensor<4x4x128x32xf32>) -> tensor<4x128x4x32xf32>
    %v421 = "remat.reshape"(%v420) {remat.name = "view_96"} : (tensor<4x128x4x32xf32>) -> tensor<4x128x128xf32>
    %v422 = "remat.transpose"(%v416) <{permutation = array<i64: 0, 2, 1, 3>}> {remat.name = "transpose_37"} : (tensor<4x4x128x32xf32>) -> tensor<4x128x4x32xf32>
    %v423 = "remat.reshape"(%v422) {remat.name = "_unsafe_view_22"} : (tensor<4x128x4x32xf32>) -> tensor<4x128x128xf32>
    %v424 = "remat.concat"(%v423, %v421, %v419) <{dim = 2 : i64}> {remat.name = "cat_1"} : (tensor<4x128x128xf32>, tensor<4x128x128xf32>, tensor<4x128x128xf32>) -> tensor<4x128x384xf32>
    %v425 = "remat.reshape"(%v424) {remat.name = "view_97"} : (tensor<4x128x384xf32>) -> tensor<512x384xf32>
    %v426 = "remat.transpose"(%v134) <{permutation = array<i64: 1, 0>}> {remat.name = "t_49"} : (tensor<128x384xf32>) -> tensor<384x128xf32>
    %v427 = "remat.matmul"(%v425, %v426) {remat.name = "mm_17"} : (tensor<512x384xf32>, tensor<384x128xf32>) -> tensor<512x128xf32>
    %v428 = "remat.transpose"(%v425) <{permutation = array<i64: 1, 0>}> {remat.name = "t_50"} : (tensor<512x384xf32>) -> tensor<384x512xf32>
    %v429 = "remat.matmul"(%v428, %v133) {remat.name = "mm_18"} : (tensor<384x512xf32>, tensor<512x128xf32>) -> tensor<384x128xf32>
    %v430 = "remat.transpose"(%v429) <{permutation = array<i64: 1, 0>}> {remat.name = "t_51"} : (tensor<384x128xf32>) -> tensor<128x384xf32>
    %v431 = "remat.sum"(%v425) <{dims = array<i64: 0>, keepdim}> {remat.name = "sum_8"} : (tensor<512x384xf32>) -> tensor<1x384xf32>
    %v432 = "remat.reshape"(%v431) {remat.name = "view_98"} : (tensor<1x384xf32>) -> tensor<384xf32>
    %v433 = "remat.transpose"(%v430) <{permutation = array<i64: 1, 0>}> {remat.name = "t_52"} : (tensor<128x384xf32>) -> tensor<384x128xf32>
    %v434 = "remat.reshape"(%v427) {remat.name = "view_99"} : (tensor<512x128xf32>) -> tensor<4x128x128xf32>
    %v435 = "remat.reshape"(%v131) {remat.name = "native_layer_norm_backward_4.mean"} : (tensor<4x128x1xf32>) -> tensor<4x128xf32>
    %v436 = "remat.reshape"(%v132) {remat.name = "native_layer_norm_backward_4.rstd"} : (tensor<4x128x1xf32>) -> tensor<4x128xf32>
    %v437:3 = "remat.layernorm_backward"(%v434, %v129, %arg26, %v435, %v436) {remat.name = "native_layer_norm_backward_4"} : (tensor<4x128x128xf32>, tensor<4x128x128xf32>, tensor<128xf32>, tensor<4x128xf32>, tensor<4x128xf32>) -> (tensor<4x128x128xf32>, tensor<128xf32>, tensor<128xf32>)
    %v438 = "remat.add"(%v384, %v437#0) {remat.name = "add_16"} : (tensor<4x128x128xf32>, tensor<4x128x128xf32>) -> tensor<4x128x128xf32>
    %v439 = "remat.dropout_backward"(%v438, %v128#1) <{p = 0.1 : f64}> {remat.name = "native_dropout_backward_6"} : (tensor<4x128x128xf32>, tensor<4x128x128xi1>) -> tensor<4x128x128xf32>
    %v440 = "remat.reshape"(%v439) {remat.name = "view_100"} : (tensor<4x128x128xf32>) -> tensor<512x128xf32>
    %v441 = "remat.transpose"(%v123) <{permutation = array<i64: 1, 0>}> {remat.name = "t_53"} : (tensor<512x128xf32>) -> tensor<128x512xf32>
    %v442 = "remat.matmul"(%v440, %v441) {remat.name = "mm_19"} : (tensor<512x128xf32>, tensor<128x512xf32>) -> tensor<512x512xf32>
    %v443 = "remat.transpose"(%v440) <{permutation = array<i64: 1, 0>}> {remat.name = "t_54"} : (tensor<512x128xf32>) -> tensor<128x512xf32>
    %v444 = "remat.matmul"(%v443, %v122) {remat.name = "mm_20"} : (tensor<128x512xf32>, tensor<512x512xf32>) -> tensor<128x512xf32>
    %v445 = "remat.transpose"(%v444) <{permutation = array<i64: 1, 0>}> {remat.name = "t_55"} : (tensor<128x512xf32>) -> tensor<512x128xf32>
    %v446 = "remat.sum"(%v440) <{dims = array<i64: 0>, keepdim}> {remat.name = "sum_9"} : (tensor<512x128xf32>) -> tensor<1x128xf32>
    %v447 = "remat.reshape"(%v446) {remat.name = "view_101"} : (tensor<1x128xf32>) -> tensor<128xf32>
    %v448 = "remat.transpose"(%v445) <{permutation = array<i64: 1, 0>}> {remat.name = "t_56"} : (tensor<512x128xf32>) -> tensor<128x512xf32>
    %v449 = "remat.reshape"(%v442) {remat.name = "view_102"} : (tensor<512x512xf32>) -> tensor<4x128x512xf32>
    %v450 = "remat.gelu_backward"(%v449, %v120) <{approximate = "tanh"}> {remat.name = "gelu_backward_2"} : (tensor<4x128x512xf32>, tensor<4x128x512xf32>) -> tensor<4x128x512xf32>
    %v451 = "remat.reshape"(%v450) {remat.name = "view_103"} : (tensor<4x128x512xf32>) -> tensor<512x512xf32>
    %v452 = "remat.transpose"(%v116) <{permutation = array<i64: 1, 0>}> {remat.name = "t_57"} : (tensor<128x512xf32>) -> tensor<512x128xf32>
    %v453 = "remat.matmul"(%v451, %v452) {remat.name = "mm_21"} : (tensor<512x512xf32>, tensor<512x128xf32>) -> tensor<512x128xf32>
    %v454 = "remat.transpose"(%v451) <{permutation = array<i64: 1, 0>}> {remat.name = "t_58"} : (tensor<512x512xf32>) -> tensor<512x512xf32>
    %v455 = "remat.matmul"(%v454, %v115) {remat.name = "mm_22"} : (tensor<512x512xf32>, tensor<512x128xf32>) -> tensor<512x128xf32>
    %v456 = "remat.transpose"(%v455) <{permutation = array<i64: 1, 0>}> {remat.name = "t_59"} : (tensor<512x128xf32>) -> tensor<128x512xf32>
    %v457 = "remat.sum"(%v451) <{dims = array<i64: 0>, keepdim}> {remat.name = "sum_10"} : (tensor<512x512xf32>) -> tensor<1x512xf32>
    %v458 = "remat.reshape"(%v457) {remat.name = "view_104"} : (tensor<1x512xf32>) -> tensor<512xf32>
    %v459 = "remat.transpose"(%v456) <{permutation = array<i64: 1, 0>}> {remat.name = "t_60"} : (tensor<128x512xf32>) -> tensor<512x128xf32>
    %v460 = "remat.reshape"(%v453) {remat.name = "view_105"} : (tensor<512x128xf32>) -> tensor<4x128x128xf32>
    %v461 = "remat.reshape"(%v113) {remat.name = "native_layer_norm_backward_5.mean"} : (tensor<4x128x1xf32>) -> tensor<4x128xf32>
    %v462 = "remat.reshape"(%v114) {remat.name = "native_layer_norm_backward_5.rstd"} : (tensor<4x128x1xf32>) -> tensor<4x128xf32>
    %v463:3 = "remat.layernorm_backward"(%v460, %v111, %arg20, %v461, %v462) {remat.name = "native_layer_norm_backward_5"} : (tensor<4x128x128xf32>, tensor<4x128x128xf32>, tensor<128xf32>, tensor<4x128xf32>, tensor<4x128xf32>) -> (tensor<4x128x128xf32>, tensor<128xf32>, tensor<128xf32>)
    %v464 = "remat.add"(%v438, %v463#0) {remat.name = "add_17"} : (tensor<4x128x128xf32>, tensor<4x128x128xf32>) -> tensor<4x128x128xf32>
    %v465 = "remat.dropout_backward"(%v464, %v110#1) <{p = 0.1 : f64}> {remat.name = "native_dropout_backward_7"} : (tensor<4x128x128xf32>, tensor<4x128x128xi1>) -> tensor<4x128x128xf32>
    %v466 = "remat.reshape"(%v465) {remat.name = "view_106"} : (tensor<4x128x128xf32>) -> tensor<512x128xf32>
    %v467 = "remat.transpose"(%v105) <{permutation = array<i64: 1, 0>}> {remat.name = "t_61"} : (tensor<128x128xf32>) -> tensor<128x128xf32>
    %v468 = "remat.matmul"(%v466, %v467) {remat.name = "mm_23"} : (tensor<512x128xf32>, tensor<128x128xf32>) -> tensor<512x128xf32>
    %v469 = "remat.transpose"(%v466) <{permutation = array<i64: 1, 0>}> {remat.name = "t_62"} : (tensor<512x128xf32>) -> tensor<128x512xf32>
    %v470 = "remat.matmul"(%v469, %v104) {remat.name = "mm_24"} : (tensor<128x512xf32>, tensor<512x128xf32>) -> tensor<128x128xf32>
    %v471 = "remat.transpose"(%v470) <{permutation = array<i64: 1, 0>}> {remat.name = "t_63"} : (tensor<128x128xf32>) -> tensor<128x128xf32>
    %v472 = "remat.sum"(%v466) <{dims = array<i64: 0>, keepdim}> {remat.name = "sum_11"} : (tensor<512x128xf32>) -> tensor<1x128xf32>
    %v473 = "remat.reshape"(%v472) {remat.name = "view_107"} : (tensor<1x128xf32>) -> tensor<128xf32>
    %v474 = "remat.transpose"(%v471) <{permutation = array<i64: 1, 0>}> {remat.name = "t_64"} : (tensor<128x128xf32>) -> tensor<128x128xf32>
    %v475 = "remat.reshape"(%v468) {remat.name = "view_108"} : (tensor<512x128xf32>) -> tensor<4x128x128xf32>
    %v476 = "remat.reshape"(%v475) {remat.name = "view_109"} : (tensor<4x128x128xf32>) -> tensor<4x128x4x32xf32>
    %v477 = "remat.transpose"(%v476) <{permutation = array<i64: 0, 2, 1, 3>}> {remat.name = "transpose_38"} : (tensor<4x128x4x32xf32>) -> tensor<4x4x128x32xf32>
    %v478 = "remat.reshape"(%v477) {remat.name = "_unsafe_view_23"} : (tensor<4x4x128x32xf32>) -> tensor<16x128x32xf32>
    %v479 = "remat.transpose"(%v98) <{permutation = array<i64: 0, 2, 1>}> {remat.name = "transpose_39"} : (tensor<16x128x128xf32>) -> tensor<16x128x128xf32>
    %v480 = "remat.matmul"(%v479, %v478) {remat.name = "bmm_16"} : (tensor<16x128x128xf32>, tensor<16x128x32xf32>) -> tensor<16x128x32xf32>
    %v481 = "remat.transpose"(%v99) <{permutation = array<i64: 0, 2, 1>}> {remat.name = "transpose_40"} : (tensor<16x128x32xf32>) -> tensor<16x32x128xf32>
    %v482 = "remat.matmul"(%v478, %v481) {remat.name = "bmm_17"} : (tensor<16x128x32xf32>, tensor<16x32x128xf32>) -> tensor<16x128x128xf32>
    %v483 = "remat.reshape"(%v480) {remat.name = "view_110"} : (tensor<16x128x32xf32>) -> tensor<4x4x128x32xf32>
    %v484 = "remat.reshape"(%v482) {remat.name = "view_111"} : (tensor<16x128x128xf32>) -> tensor<4x4x128x128xf32>
    %v485 = "remat.dropout_backward"(%v484, %v97#1) <{p = 0.1 : f64}> {remat.name = "native_dropout_backward_8"} : (tensor<4x4x128x128xf32>, tensor<4x4x128x128xi1>) -> tensor<4x4x128x128xf32>
    %v486 = "remat.softmax_backward"(%v485, %v96) <{dim = 3 : i64}> {remat.name = "_softmax_backward_data_2"} : (tensor<4x4x128x128xf32>, tensor<4x4x128x128xf32>) -> tensor<4x4x128x128xf32>
    %v487 = "remat.constant"() <{value = dense<5.656854249492381> : tensor<f32>}> {remat.name = "div_6.divisor"} : () -> tensor<f32>
    %v488 = "remat.broadcast"(%v487) {remat.name = "div_6.broadcast"} : (tensor<f32>) -> tensor<4x4x128x128xf32>
    %v489 = "remat.div"(%v486, %v488) {remat.name = "div_6"} : (tensor<4x4x128x128xf32>, tensor<4x4x128x128xf32>) -> tensor<4x4x128x128xf32>
    %v490 = "remat.reshape"(%v489) {remat.name = "view_112"} : (tensor<4x4x128x128xf32>) -> tensor<16x128x128xf32>
    %v491 = "remat.transpose"(%v87) <{permutation = array<i64: 0, 2, 1>}> {remat.name = "transpose_41"} : (tensor<16x128x32xf32>) -> tensor<16x32x128xf32>
    %v492 = "remat.matmul"(%v491, %v490) {remat.name = "bmm_18"} : (tensor<16x32x128xf32>, tensor<16x128x128xf32>) -> tensor<16x32x128xf32>
    %v493 = "remat.transpose"(%v88) <{permutation = array<i64: 0, 2, 1>}> {remat.name = "transpose_42"} : (tensor<16x32x128xf32>) -> tensor<16x128x32xf32>
    %v494 = "remat.matmul"(%v490, %v493) {remat.name = "bmm_19"} : (tensor<16x128x128xf32>, tensor<16x128x32xf32>) -> tensor<16x128x32xf32>
    %v495 = "remat.reshape"(%v492) {remat.name = "view_113"} : (tensor<16x32x128xf32>) -> tensor<4x4x32x128xf32>
    %v496 = "remat.reshape"(%v494) {remat.name = "view_114"} : (tensor<16x128x32xf32>) -> tensor<4x4x128x32xf32>
    %v497 = "remat.transpose"(%v495) <{permutation = array<i64: 0, 1, 3, 2>}> {remat.name = "transpose_43"} : (tensor<4x4x32x128xf32>) -> tensor<4x4x128x32xf32>
    %v498 = "remat.transpose"(%v483) <{permutation = array<i64: 0, 2, 1, 3>}> {remat.name = "transpose_44"} : (tensor<4x4x128x32xf32>) -> tensor<4x128x4x32xf32>
    %v499 = "remat.reshape"(%v498) {remat.name = "_unsafe_view_24"} : (tensor<4x128x4x32xf32>) -> tensor<4x128x128xf32>
    %v500 = "remat.transpose"(%v497) <{permutation = array<i64: 0, 2, 1, 3>}> {remat.name = "transpose_45"} : (tensor<4x4x128x32xf32>) -> tensor<4x128x4x32xf32>
    %v501 = "remat.reshape"(%v500) {remat.name = "view_115"} : (tensor<4x128x4x32xf32>) -> tensor<4x128x128xf32>
    %v502 = "remat.transpose"(%v496) <{permutation = array<i64: 0, 2, 1, 3>}> {remat.name = "transpose_46"} : (tensor<4x4x128x32xf32>) -> tensor<4x128x4x32xf32>
    %v503 = "remat.reshape"(%v502) {remat.name = "_unsafe_view_25"} : (tensor<4x128x4x32xf32>) -> tensor<4x128x128xf32>
    %v504 = "remat.concat"(%v503, %v501, %v499) <{dim = 2 : i64}> {remat.name = "cat_2"} : (tensor<4x128x128xf32>, tensor<4x128x128xf32>, tensor<4x128x128xf32>) -> tensor<4x128x384xf32>
    %v505 = "remat.reshape"(%v504) {remat.name = "view_116"} : (tensor<4x128x384xf32>) -> tensor<512x384xf32>
    %v506 = "remat.transpose"(%v72) <{permutation = array<i64: 1, 0>}> {remat.name = "t_65"} : (tensor<128x384xf32>) -> tensor<384x128xf32>
    %v507 = "remat.matmul"(%v505, %v506) {remat.name = "mm_25"} : (tensor<512x384xf32>, tensor<384x128xf32>) -> tensor<512x128xf32>
    %v508 = "remat.transpose"(%v505) <{permutation = array<i64: 1, 0>}> {remat.name = "t_66"} : (tensor<512x384xf32>) -> tensor<384x512xf32>
    %v509 = "remat.matmul"(%v508, %v71) {remat.name = "mm_26"} : (tensor<384x512xf32>, tensor<512x128xf32>) -> tensor<384x128xf32>
    %v510 = "remat.transpose"(%v509) <{permutation = array<i64: 1, 0>}> {remat.name = "t_67"} : (tensor<384x128xf32>) -> tensor<128x384xf32>
    %v511 = "remat.sum"(%v505) <{dims = array<i64: 0>, keepdim}> {remat.name = "sum_12"} : (tensor<512x384xf32>) -> tensor<1x384xf32>
    %v512 = "remat.reshape"(%v511) {remat.name = "view_117"} : (tensor<1x384xf32>) -> tensor<384xf32>
    %v513 = "remat.transpose"(%v510) <{permutation = array<i64: 1, 0>}> {remat.name = "t_68"} : (tensor<128x384xf32>) -> tensor<384x128xf32>
    %v514 = "remat.reshape"(%v507) {remat.name = "view_118"} : (tensor<512x128xf32>) -> tensor<4x128x128xf32>
    %v515 = "remat.reshape"(%v69) {remat.name = "native_layer_norm_backward_6.mean"} : (tensor<4x128x1xf32>) -> tensor<4x128xf32>
    %v516 = "remat.reshape"(%v70) {remat.name = "native_layer_norm_backward_6.rstd"} : (tensor<4x128x1xf32>) -> tensor<4x128xf32>
    %v517:3 = "remat.layernorm_backward"(%v514, %v67, %arg14, %v515, %v516) {remat.name = "native_layer_norm_backward_6"} : (tensor<4x128x128xf32>, tensor<4x128x128xf32>, tensor<128xf32>, tensor<4x128xf32>, tensor<4x128xf32>) -> (tensor<4x128x128xf32>, tensor<128xf32>, tensor<128xf32>)
    %v518 = "remat.add"(%v464, %v517#0) {remat.name = "add_18"} : (tensor<4x128x128xf32>, tensor<4x128x128xf32>) -> tensor<4x128x128xf32>
    %v519 = "remat.dropout_backward"(%v518, %v66#1) <{p = 0.1 : f64}> {remat.name = "native_dropout_backward_9"} : (tensor<4x128x128xf32>, tensor<4x128x128xi1>) -> tensor<4x128x128xf32>
    %v520 = "remat.reshape"(%v519) {remat.name = "view_119"} : (tensor<4x128x128xf32>) -> tensor<512x128xf32>
    %v521 = "remat.transpose"(%v61) <{permutation = array<i64: 1, 0>}> {remat.name = "t_69"} : (tensor<512x128xf32>) -> tensor<128x512xf32>
    %v522 = "remat.matmul"(%v520, %v521) {remat.name = "mm_27"} : (tensor<512x128xf32>, tensor<128x512xf32>) -> tensor<512x512xf32>
    %v523 = "remat.transpose"(%v520) <{permutation = array<i64: 1, 0>}> {remat.name = "t_70"} : (tensor<512x128xf32>) -> tensor<128x512xf32>
    %v524 = "remat.matmul"(%v523, %v60) {remat.name = "mm_28"} : (tensor<128x512xf32>, tensor<512x512xf32>) -> tensor<128x512xf32>
    %v525 = "remat.transpose"(%v524) <{permutation = array<i64: 1, 0>}> {remat.name = "t_71"} : (tensor<128x512xf32>) -> tensor<512x128xf32>
    %v526 = "remat.sum"(%v520) <{dims = array<i64: 0>, keepdim}> {remat.name = "sum_13"} : (tensor<512x128xf32>) -> tensor<1x128xf32>
    %v527 = "remat.reshape"(%v526) {remat.name = "view_120"} : (tensor<1x128xf32>) -> tensor<128xf32>
    %v528 = "remat.transpose"(%v525) <{permutation = array<i64: 1, 0>}> {remat.name = "t_72"} : (tensor<512x128xf32>) -> tensor<128x512xf32>
    %v529 = "remat.reshape"(%v522) {remat.name = "view_121"} : (tensor<512x512xf32>) -> tensor<4x128x512xf32>
    %v530 = "remat.gelu_backward"(%v529, %v58) <{approximate = "tanh"}> {remat.name = "gelu_backward_3"} : (tensor<4x128x512xf32>, tensor<4x128x512xf32>) -> tensor<4x128x512xf32>
    %v531 = "remat.reshape"(%v530) {remat.name = "view_122"} : (tensor<4x128x512xf32>) -> tensor<512x512xf32>
    %v532 = "remat.transpose"(%v54) <{permutation = array<i64: 1, 0>}> {remat.name = "t_73"} : (tensor<128x512xf32>) -> tensor<512x128xf32>
    %v533 = "remat.matmul"(%v531, %v532) {remat.name = "mm_29"} : (tensor<512x512xf32>, tensor<512x128xf32>) -> tensor<512x128xf32>
    %v534 = "remat.transpose"(%v531) <{permutation = array<i64: 1, 0>}> {remat.name = "t_74"} : (tensor<512x512xf32>) -> tensor<512x512xf32>
    %v535 = "remat.matmul"(%v534, %v53) {remat.name = "mm_30"} : (tensor<512x512xf32>, tensor<512x128xf32>) -> tensor<512x128xf32>
    %v536 = "remat.transpose"(%v535) <{permutation = array<i64: 1, 0>}> {remat.name = "t_75"} : (tensor<512x128xf32>) -> tensor<128x512xf32>
    %v537 = "remat.sum"(%v531) <{dims = array<i64: 0>, keepdim}> {remat.name = "sum_14"} : (tensor<512x512xf32>) -> tensor<1x512xf32>
    %v538 = "remat.reshape"(%v537) {remat.name = "view_123"} : (tensor<1x512xf32>) -> tensor<512xf32>
    %v539 = "remat.transpose"(%v536) <{permutation = array<i64: 1, 0>}> {remat.name = "t_76"} : (tensor<128x512xf32>) -> tensor<512x128xf32>
    %v540 = "remat.reshape"(%v533) {remat.name = "view_124"} : (tensor<512x128xf32>) -> tensor<4x128x128xf32>
    %v541 = "remat.reshape"(%v51) {remat.name = "native_layer_norm_backward_7.mean"} : (tensor<4x128x1xf32>) -> tensor<4x128xf32>
    %v542 = "remat.reshape"(%v52) {remat.name = "native_layer_norm_backward_7.rstd"} : (tensor<4x128x1xf32>) -> tensor<4x128xf32>
    %v543:3 = "remat.layernorm_backward"(%v540, %v49, %arg8, %v541, %v542) {remat.name = "native_layer_norm_backward_7"} : (tensor<4x128x128xf32>, tensor<4x128x128xf32>, tensor<128xf32>, tensor<4x128xf32>, tensor<4x128xf32>) -> (tensor<4x128x128xf32>, tensor<128xf32>, tensor<128xf32>)
    %v544 = "remat.add"(%v518, %v543#0) {remat.name = "add_19"} : (tensor<4x128x128xf32>, tensor<4x128x128xf32>) -> tensor<4x128x128xf32>
    %v545 = "remat.dropout_backward"(%v544, %v48#1) <{p = 0.1 : f64}> {remat.name = "native_dropout_backward_10"} : (tensor<4x128x128xf32>, tensor<4x128x128xi1>) -> tensor<4x128x128xf32>
    %v546 = "remat.reshape"(%v545) {remat.name = "view_125"} : (tensor<4x128x128xf32>) -> tensor<512x128xf32>
    %v547 = "remat.transpose"(%v43) <{permutation = array<i64: 1, 0>}> {remat.name = "t_77"} : (tensor<128x128xf32>) -> tensor<128x128xf32>
    %v548 = "remat.matmul"(%v546, %v547) {remat.name = "mm_31"} : (tensor<512x128xf32>, tensor<128x128xf32>) -> tensor<512x128xf32>
    %v549 = "remat.transpose"(%v546) <{permutation = array<i64: 1, 0>}> {remat.name = "t_78"} : (tensor<512x128xf32>) -> tensor<128x512xf32>
    %v550 = "remat.matmul"(%v549, %v42) {remat.name = "mm_32"} : (tensor<128x512xf32>, tensor<512x128xf32>) -> tensor<128x128xf32>
    %v551 = "remat.transpose"(%v550) <{permutation = array<i64: 1, 0>}> {remat.name = "t_79"} : (tensor<128x128xf32>) -> tensor<128x128xf32>
    %v552 = "remat.sum"(%v546) <{dims = array<i64: 0>, keepdim}> {remat.name = "sum_15"} : (tensor<512x128xf32>) -> tensor<1x128xf32>
    %v553 = "remat.reshape"(%v552) {remat.name = "view_126"} : (tensor<1x128xf32>) -> tensor<128xf32>
    %v554 = "remat.transpose"(%v551) <{permutation = array<i64: 1, 0>}> {remat.name = "t_80"} : (tensor<128x128xf32>) -> tensor<128x128xf32>
    %v555 = "remat.reshape"(%v548) {remat.name = "view_127"} : (tensor<512x128xf32>) -> tensor<4x128x128xf32>
    %v556 = "remat.reshape"(%v555) {remat.name = "view_128"} : (tensor<4x128x128xf32>) -> tensor<4x128x4x32xf32>
    %v557 = "remat.transpose"(%v556) <{permutation = array<i64: 0, 2, 1, 3>}> {remat.name = "transpose_47"} : (tensor<4x128x4x32xf32>) -> tensor<4x4x128x32xf32>
    %v558 = "remat.reshape"(%v557) {remat.name = "_unsafe_view_26"} : (tensor<4x4x128x32xf32>) -> tensor<16x128x32xf32>
    %v559 = "remat.transpose"(%v36) <{permutation = array<i64: 0, 2, 1>}> {remat.name = "transpose_48"} : (tensor<16x128x128xf32>) -> tensor<16x128x128xf32>
    %v560 = "remat.matmul"(%v559, %v558) {remat.name = "bmm_20"} : (tensor<16x128x128xf32>, tensor<16x128x32xf32>) -> tensor<16x128x32xf32>
    %v561 = "remat.transpose"(%v37) <{permutation = array<i64: 0, 2, 1>}> {remat.name = "transpose_49"} : (tensor<16x128x32xf32>) -> tensor<16x32x128xf32>
    %v562 = "remat.matmul"(%v558, %v561) {remat.name = "bmm_21"} : (tensor<16x128x32xf32>, tensor<16x32x128xf32>) -> tensor<16x128x128xf32>
    %v563 = "remat.reshape"(%v560) {remat.name = "view_129"} : (tensor<16x128x32xf32>) -> tensor<4x4x128x32xf32>
    %v564 = "remat.reshape"(%v562) {remat.name = "view_130"} : (tensor<16x128x128xf32>) -> tensor<4x4x128x128xf32>
    %v565 = "remat.dropout_backward"(%v564, %v35#1) <{p = 0.1 : f64}> {remat.name = "native_dropout_backward_11"} : (tensor<4x4x128x128xf32>, tensor<4x4x128x128xi1>) -> tensor<4x4x128x128xf32>
    %v566 = "remat.softmax_backward"(%v565, %v34) <{dim = 3 : i64}> {remat.name = "_softmax_backward_data_3"} : (tensor<4x4x128x128xf32>, tensor<4x4x128x128xf32>) -> tensor<4x4x128x128xf32>
    %v567 = "remat.constant"() <{value = dense<5.656854249492381> : tensor<f32>}> {remat.name = "div_7.divisor"} : () -> tensor<f32>
    %v568 = "remat.broadcast"(%v567) {remat.name = "div_7.broadcast"} : (tensor<f32>) -> tensor<4x4x128x128xf32>
    %v569 = "remat.div"(%v566, %v568) {remat.name = "div_7"} : (tensor<4x4x128x128xf32>, tensor<4x4x128x128xf32>) -> tensor<4x4x128x128xf32>
    %v570 = "remat.reshape"(%v569) {remat.name = "view_131"} : (tensor<4x4x128x128xf32>) -> tensor<16x128x128xf32>
    %v571 = "remat.transpose"(%v25) <{permutation = array<i64: 0, 2, 1>}> {remat.name = "transpose_50"} : (tensor<16x128x32xf32>) -> tensor<16x32x128xf32>
    %v572 = "remat.matmul"(%v571, %v570) {remat.name = "bmm_22"} : (tensor<16x32x128xf32>, tensor<16x128x128xf32>) -> tensor<16x32x128xf32>
    %v573 = "remat.transpose"(%v26) <{permutation = array<i64: 0, 2, 1>}> {remat.name = "transpose_51"} : (tensor<16x32x128xf32>) -> tensor<16x128x32xf32>
    %v574 = "remat.matmul"(%v570, %v573) {remat.name = "bmm_23"} : (tensor<16x128x128xf32>, tensor<16x128x32xf32>) -> tensor<16x128x32xf32>
    %v575 = "remat.reshape"(%v572) {remat.name = "view_132"} : (tensor<16x32x128xf32>) -> tensor<4x4x32x128xf32>
    %v576 = "remat.reshape"(%v574) {remat.name = "view_133"} : (tensor<16x128x32xf32>) -> tensor<4x4x128x32xf32>
    %v577 = "remat.transpose"(%v575) <{permutation = array<i64: 0, 1, 3, 2>}> {remat.name = "transpose_52"} : (tensor<4x4x32x128xf32>) -> tensor<4x4x128x32xf32>
    %v578 = "remat.transpose"(%v563) <{permutation = array<i64: 0, 2, 1, 3>}> {remat.name = "transpose_53"} : (tensor<4x4x128x32xf32>) -> tensor<4x128x4x32xf32>
    %v579 = "remat.reshape"(%v578) {remat.name = "_unsafe_view_27"} : (tensor<4x128x4x32xf32>) -> tensor<4x128x128xf32>
    %v580 = "remat.transpose"(%v577) <{permutation = array<i64: 0, 2, 1, 3>}> {remat.name = "transpose_54"} : (tensor<4x4x128x32xf32>) -> tensor<4x128x4x32xf32>
    %v581 = "remat.reshape"(%v580) {remat.name = "view_134"} : (tensor<4x128x4x32xf32>) -> tensor<4x128x128xf32>
    %v582 = "remat.transpose"(%v576) <{permutation = array<i64: 0, 2, 1, 3>}> {remat.name = "transpose_55"} : (tensor<4x4x128x32xf32>) -> tensor<4x128x4x32xf32>
    %v583 = "remat.reshape"(%v582) {remat.name = "_unsafe_view_28"} : (tensor<4x128x4x32xf32>) -> tensor<4x128x128xf32>
    %v584 = "remat.concat"(%v583, %v581, %v579) <{dim = 2 : i64}> {remat.name = "cat_3"} : (tensor<4x128x128xf32>, tensor<4x128x128xf32>, tensor<4x128x128xf32>) -> tensor<4x128x384xf32>
    %v585 = "remat.reshape"(%v584) {remat.name = "view_135"} : (tensor<4x128x384xf32>) -> tensor<512x384xf32>
    %v586 = "remat.transpose"(%v10) <{permutation = array<i64: 1, 0>}> {remat.name = "t_81"} : (tensor<128x384xf32>) -> tensor<384x128xf32>
    %v587 = "remat.matmul"(%v585, %v586) {remat.name = "mm_33"} : (tensor<512x384xf32>, tensor<384x128xf32>) -> tensor<512x128xf32>
    %v588 = "remat.transpose"(%v585) <{permutation = array<i64: 1, 0>}> {remat.name = "t_82"} : (tensor<512x384xf32>) -> tensor<384x512xf32>
    %v589 = "remat.matmul"(%v588, %v9) {remat.name = "mm_34"} : (tensor<384x512xf32>, tensor<512x128xf32>) -> tensor<384x128xf32>
    %v590 = "remat.transpose"(%v589) <{permutation = array<i64: 1, 0>}> {remat.name = "t_83"} : (tensor<384x128xf32>) -> tensor<128x384xf32>
    %v591 = "remat.sum"(%v585) <{dims = array<i64: 0>, keepdim}> {remat.name = "sum_16"} : (tensor<512x384xf32>) -> tensor<1x384xf32>
    %v592 = "remat.reshape"(%v591) {remat.name = "view_136"} : (tensor<1x384xf32>) -> tensor<384xf32>
    %v593 = "remat.transpose"(%v590) <{permutation = array<i64: 1, 0>}> {remat.name = "t_84"} : (tensor<128x384xf32>) -> tensor<384x128xf32>
    %v594 = "remat.reshape"(%v587) {remat.name = "view_137"} : (tensor<512x128xf32>) -> tensor<4x128x128xf32>
    %v595 = "remat.reshape"(%v7) {remat.name = "native_layer_norm_backward_8.mean"} : (tensor<4x128x1xf32>) -> tensor<4x128xf32>
    %v596 = "remat.reshape"(%v8) {remat.name = "native_layer_norm_backward_8.rstd"} : (tensor<4x128x1xf32>) -> tensor<4x128xf32>
    %v597:3 = "remat.layernorm_backward"(%v594, %v5#0, %arg2, %v595, %v596) {remat.name = "native_layer_norm_backward_8"} : (tensor<4x128x128xf32>, tensor<4x128x128xf32>, tensor<128xf32>, tensor<4x128xf32>, tensor<4x128xf32>) -> (tensor<4x128x128xf32>, tensor<128xf32>, tensor<128xf32>)
    %v598 = "remat.add"(%v544, %v597#0) {remat.name = "add_20"} : (tensor<4x128x128xf32>, tensor<4x128x128xf32>) -> tensor<4x128x128xf32>
    %v599 = "remat.dropout_backward"(%v598, %v5#1) <{p = 0.1 : f64}> {remat.name = "native_dropout_backward_12"} : (tensor<4x128x128xf32>, tensor<4x128x128xi1>) -> tensor<4x128x128xf32>
    %v600 = "remat.sum"(%v599) <{dims = array<i64: 0>, keepdim}> {remat.name = "sum_17"} : (tensor<4x128x128xf32>) -> tensor<1x128x128xf32>
    %v601 = "remat.reshape"(%v600) {remat.name = "view_138"} : (tensor<1x128x128xf32>) -> tensor<128x128xf32>
    %v602 = "remat.embedding_backward"(%v601, %arg52) {remat.name = "embedding_dense_backward"} : (tensor<128x128xf32>, tensor<128xi64>) -> tensor<128x128xf32>
    %v603 = "remat.embedding_backward"(%v599, %arg57) {remat.name = "embedding_dense_backward_1"} : (tensor<4x128x128xf32>, tensor<4x128xi64>) -> tensor<1024x128xf32>
    %v604 = "remat.add"(%v275, %v603) {remat.name = "add_21"} : (tensor<1024x128xf32>, tensor<1024x128xf32>) -> tensor<1024x128xf32>
    func.return %v264#0, %v604, %v602, %v597#1, %v597#2, %v593, %v592, %v554, %v553, %v543#1, %v543#2, %v539, %v538, %v528, %v527, %v517#1, %v517#2, %v513, %v512, %v474, %v473, %v463#1, %v463#2, %v459, %v458, %v448, %v447, %v437#1, %v437#2, %v433, %v432, %v394, %v393, %v383#1, %v383#2, %v379, %v378, %v368, %v367, %v357#1, %v357#2, %v353, %v352, %v314, %v313, %v303#1, %v303#2, %v299, %v298, %v288, %v287, %v278#1, %v278#2 : tensor<f32>, tensor<1024x128xf32>, tensor<128x128xf32>, tensor<128xf32>, tensor<128xf32>, tensor<384x128xf32>, tensor<384xf32>, tensor<128x128xf32>, tensor<128xf32>, tensor<128xf32>, tensor<128xf32>, tensor<512x128xf32>, tensor<512xf32>, tensor<128x512xf32>, tensor<128xf32>, tensor<128xf32>, tensor<128xf32>, tensor<384x128xf32>, tensor<384xf32>, tensor<128x128xf32>, tensor<128xf32>, tensor<128xf32>, tensor<128xf32>, tensor<512x128xf32>, tensor<512xf32>, tensor<128x512xf32>, tensor<128xf32>, tensor<128xf32>, tensor<128xf32>, tensor<384x128xf32>, tensor<384xf32>, tensor<128x128xf32>, tensor<128xf32>, tensor<128xf32>, tensor<128xf32>, tensor<512x128xf32>, tensor<512xf32>, tensor<128x512xf32>, tensor<128xf32>, tensor<128xf32>, tensor<128xf32>, tensor<384x128xf32>, tensor<384xf32>, tensor<128x128xf32>, tensor<128xf32>, tensor<128xf32>, tensor<128xf32>, tensor<512x128xf32>, tensor<512xf32>, tensor<128x512xf32>, tensor<128xf32>, tensor<128xf32>, tensor<128xf32>
  }
}
