; ModuleID = 'loupe_artifact'
source_filename = "loupe_artifact"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

declare void @llvm.memcpy.p0.p0.i64(ptr noalias nocapture writeonly, ptr noalias nocapture readonly, i64, i1 immarg) #3

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare float @llvm.exp.f32(float) #4

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare float @llvm.maximum.f32(float, float) #4

define void @loupe_entry(ptr nocapture readonly %0) local_unnamed_addr {
entry:
  %desc0 = load ptr, ptr %0, align 8
  %1 = getelementptr inbounds i8, ptr %desc0, i64 8
  %2 = load ptr, ptr %1, align 8
  %3 = getelementptr inbounds i8, ptr %0, i64 8
  %desc1 = load ptr, ptr %3, align 8
  %4 = getelementptr inbounds i8, ptr %desc1, i64 8
  %5 = load ptr, ptr %4, align 8
  %6 = getelementptr inbounds i8, ptr %desc1, i64 16
  %7 = load i64, ptr %6, align 8
  tail call void @main(ptr poison, ptr %2, i64 poison, i64 poison, i64 poison, i64 poison, i64 poison, i64 poison, i64 poison, i64 poison, i64 poison, ptr poison, ptr %5, i64 %7, i64 poison, i64 poison, i64 poison, i64 poison)
  ret void
}
