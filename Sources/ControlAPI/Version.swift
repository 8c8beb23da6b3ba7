public enum MarqueeVersion {
    public static let current = "0.1.0"
}
