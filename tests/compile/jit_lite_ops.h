/* tests/compile/run.sh: the MLP's op list as ct_jit_export_selected_ops wrote it (tests/jit_lite/export.c),
   to compile examples/jit_lite.c with clang and g++ */
/* The selective build of a ctensor_jit graph (ct_jit_export_selected_ops): 2 ops.
   Include before ctensor.h in the file that defines CTENSOR_IMPLEMENTATION. */
#define CTENSOR_SELECTED_OPS 1
#define CTENSOR_OP_ADDMM 1   /* aten::addmm */
#define CTENSOR_OP_RELU 1   /* aten::relu */
#define CTENSOR_OP_ALIAS 1   /* aten::alias: the interpreter, graph outputs that are inputs or constants */
