package dev.peregrine;

/**
 * The header fields of a {@link DecodedRequest}: the original's without {@code Content-Encoding}, whose
 * field lines are left out of the indexed ones too (the decoded body has no coding). Made once per
 * decoded request; the indices of the lines kept are found when it is made.
 *
 * <p>Thread: the thread running the handler.
 */
final class DecodedHeaders implements Headers {
    private final Headers original;
    /** The original's field lines but Content-Encoding's, by index. */
    private final int[] lines;

    DecodedHeaders(Headers original) {
        this.original = original;
        int n = original.size();
        int[] kept = new int[n];
        int k = 0;
        for (int i = 0; i < n; i++) {
            if (!isContentEncoding(original.name(i).toString())) {
                kept[k++] = i;
            }
        }
        this.lines = java.util.Arrays.copyOf(kept, k);
    }

    private static boolean isContentEncoding(String name) {
        return name.equalsIgnoreCase("Content-Encoding");
    }

    @Override
    public String get(String name) {
        return isContentEncoding(name) ? null : original.get(name);
    }

    @Override
    public CharSequence view(String name) {
        return isContentEncoding(name) ? null : original.view(name);
    }

    @Override
    public boolean has(String name) {
        return !isContentEncoding(name) && original.has(name);
    }

    @Override
    public int size() {
        return lines.length;
    }

    @Override
    public CharSequence name(int index) {
        return original.name(line(index));
    }

    @Override
    public CharSequence value(int index) {
        return original.value(line(index));
    }

    @Override
    public java.util.List<String> all(String name) {
        return isContentEncoding(name) ? new java.util.ArrayList<>(0) : original.all(name);
    }

    private int line(int index) {
        if (index < 0 || index >= lines.length) {
            throw new IndexOutOfBoundsException(index);
        }
        return lines[index];
    }
}
