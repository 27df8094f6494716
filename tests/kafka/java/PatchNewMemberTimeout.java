import java.nio.file.Files;
import java.nio.file.Path;

import jdk.internal.org.objectweb.asm.ClassReader;
import jdk.internal.org.objectweb.asm.ClassVisitor;
import jdk.internal.org.objectweb.asm.ClassWriter;
import jdk.internal.org.objectweb.asm.FieldVisitor;
import jdk.internal.org.objectweb.asm.Label;
import jdk.internal.org.objectweb.asm.MethodVisitor;
import jdk.internal.org.objectweb.asm.Opcodes;

/**
 * Rewrites one method of a release's own GroupCoordinatorConfig.class: classicGroupNewMemberJoinTimeoutMs(),
 * which returns the constant CLASSIC_GROUP_NEW_MEMBER_JOIN_TIMEOUT_MS, then returns
 * Integer.getInteger(PROPERTY, that constant). Every other byte of the class is copied as it is. It refuses a
 * class whose method does anything but return that constant: that release would need another look.
 *
 * Usage: java --add-exports java.base/jdk.internal.org.objectweb.asm=ALL-UNNAMED PatchNewMemberTimeout IN OUT PROPERTY
 * (the JDK's own copy of ASM; no dependency to fetch).
 */
public final class PatchNewMemberTimeout {
    private static final String METHOD = "classicGroupNewMemberJoinTimeoutMs";
    private static final String FIELD = "CLASSIC_GROUP_NEW_MEMBER_JOIN_TIMEOUT_MS";

    public static void main(String[] args) throws Exception {
        byte[] original = Files.readAllBytes(Path.of(args[0]));
        String property = args[2];
        ClassReader reader = new ClassReader(original);
        Object[] constant = new Object[1];
        reader.accept(new ClassVisitor(Opcodes.ASM8) {
            @Override
            public FieldVisitor visitField(int access, String name, String descriptor, String signature, Object value) {
                if (name.equals(FIELD)) {
                    constant[0] = value;
                }
                return null;
            }
        }, ClassReader.SKIP_CODE);
        if (!(constant[0] instanceof Integer)) {
            throw new IllegalStateException(FIELD + " is no longer an int constant");
        }
        int timeout = (Integer) constant[0];
        boolean[] patched = new boolean[1];
        ClassWriter writer = new ClassWriter(reader, ClassWriter.COMPUTE_MAXS);
        reader.accept(new ClassVisitor(Opcodes.ASM8, writer) {
            @Override
            public MethodVisitor visitMethod(int access, String name, String descriptor, String signature, String[] exceptions) {
                MethodVisitor target = super.visitMethod(access, name, descriptor, signature, exceptions);
                if (!name.equals(METHOD) || !descriptor.equals("()I")) {
                    return target;
                }
                patched[0] = true;
                return new ConstantReturn(timeout, target, property);
            }
        }, 0);
        if (!patched[0]) {
            throw new IllegalStateException(METHOD + "() not found");
        }
        Files.write(Path.of(args[1]), writer.toByteArray());
    }

    /** Reads the original body (it must be `ldc TIMEOUT; ireturn`), then writes the new one in its place. */
    private static final class ConstantReturn extends MethodVisitor {
        private final int timeout;
        private final MethodVisitor target;
        private final String property;
        private boolean loaded;
        private boolean returned;
        private String other;

        ConstantReturn(int timeout, MethodVisitor target, String property) {
            super(Opcodes.ASM8);
            this.timeout = timeout;
            this.target = target;
            this.property = property;
        }

        @Override
        public void visitLdcInsn(Object value) {
            if (loaded || !Integer.valueOf(timeout).equals(value)) {
                other = "ldc " + value;
            }
            loaded = true;
        }

        @Override
        public void visitInsn(int opcode) {
            if (opcode == Opcodes.IRETURN && loaded && !returned) {
                returned = true;
            } else {
                other = "opcode " + opcode;
            }
        }

        @Override
        public void visitIntInsn(int opcode, int operand) {
            other = "opcode " + opcode;
        }

        @Override
        public void visitVarInsn(int opcode, int var) {
            other = "opcode " + opcode;
        }

        @Override
        public void visitFieldInsn(int opcode, String owner, String name, String descriptor) {
            other = "field " + name;
        }

        @Override
        public void visitMethodInsn(int opcode, String owner, String name, String descriptor, boolean isInterface) {
            other = "call " + name;
        }

        @Override
        public void visitJumpInsn(int opcode, Label label) {
            other = "jump";
        }

        @Override
        public void visitEnd() {
            if (other != null || !returned) {
                throw new IllegalStateException(METHOD + "() no longer returns " + FIELD + " alone (" + other + ")");
            }
            target.visitCode();
            target.visitLdcInsn(property);
            target.visitLdcInsn(timeout);
            target.visitMethodInsn(Opcodes.INVOKESTATIC, "java/lang/Integer", "getInteger",
                    "(Ljava/lang/String;I)Ljava/lang/Integer;", false);
            target.visitMethodInsn(Opcodes.INVOKEVIRTUAL, "java/lang/Integer", "intValue", "()I", false);
            target.visitInsn(Opcodes.IRETURN);
            target.visitMaxs(0, 0);
            target.visitEnd();
        }
    }
}
