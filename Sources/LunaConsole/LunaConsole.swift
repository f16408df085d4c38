public enum LunaConsole {}
