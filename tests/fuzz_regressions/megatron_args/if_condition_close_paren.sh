if )
