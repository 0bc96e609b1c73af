//===- RematNNOps.td - neural-network ops and their backward ops -*- tablegen -*-===//
//
// Part of remat. Included from RematOps.td (base classes live there):
// softmax, norms, attention, dropout, embedding, losses, convolution,
// pooling, each with the backward ops autodiff and importers emit.
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_DIALECT_REMAT_IR_REMATNNOPS_TD
#define REMAT_DIALECT_REMAT_IR_REMATNNOPS_TD

#endif // REMAT_DIALECT_REMAT_IR_REMATNNOPS_TD
