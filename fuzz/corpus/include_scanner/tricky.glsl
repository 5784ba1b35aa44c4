#include "a.glsl" /* c */
/* #include "b.glsl"
*/ #include <c.glsl>
# include \
 "d.glsl"
// #include "e.glsl"
